import { TRACE_CSS, TRACE_VIEWER_JS } from '@rlm/trace';
import { Hono } from 'hono';
import type { AppEnv } from '../app-env.js';
import { AGENT_PAGE_JS } from './agent-page-script.js';
import { COMMON_JS } from './common-script.generated.js';
import { RUN_PAGE_JS } from './run-page-script.generated.js';
import { RUNS_PAGE_JS } from './runs-page-script.generated.js';
import { uiShell } from './ui-shell.js';
import { UI_CSS } from './ui-styles.js';

/** Scripts and styles come only from this server; no inline script can run. */
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const ASSETS: Record<string, { body: string; type: string }> = {
  'common.js': { body: COMMON_JS, type: 'text/javascript; charset=utf-8' },
  // The trace viewer (the script `rlm trace --html` inlines) first: the run page mounts it.
  'run-page.js': {
    body: `${TRACE_VIEWER_JS}\n${RUN_PAGE_JS}`,
    type: 'text/javascript; charset=utf-8',
  },
  'runs-page.js': { body: RUNS_PAGE_JS, type: 'text/javascript; charset=utf-8' },
  'agent-page.js': { body: AGENT_PAGE_JS, type: 'text/javascript; charset=utf-8' },
  'ui.css': { body: UI_CSS, type: 'text/css; charset=utf-8' },
  // The trace view's own style sheet, the one `rlm trace --html` inlines.
  'trace.css': { body: TRACE_CSS, type: 'text/css; charset=utf-8' },
};

/** The runs page's static markup: a status filter, the table the script fills, more. */
const RUNS_MAIN = `<p><label>Status <select id="status-filter" data-testid="status-filter">
<option value="">any</option><option>queued</option><option>running</option><option>completed</option>
<option>max_iterations</option><option>budget_exceeded</option><option>timeout</option>
<option>cancelled</option><option>error</option><option>interrupted</option>
</select></label></p>
<table class="runs" data-testid="runs"><thead><tr><th>Run</th><th>Started</th><th>Status</th><th>Model</th><th>Query</th><th>Cost</th><th>Tokens</th></tr></thead>
<tbody id="runs-body"></tbody></table>
<p id="runs-empty" class="hint" hidden>No runs yet.</p>
<p><button id="more" type="button" hidden>More</button></p>`;

/**
 * `/ui/runs`, `/ui/runs/:id` and `/ui/agents/:id`: read-only pages. The HTML holds no data; the page asks for
 * the API key (or takes it from `#key=`) and reads everything through the authenticated API,
 * so the pages have exactly the API's access rules. `/ui/runs` lists the caller's runs
 * (`GET /v1/runs`), newest first. The run page shows the trace viewer on the markup of
 * `GET /v1/runs/:id/view`, the same page `rlm trace --html` writes, refreshed while the run goes.
 */
export function uiRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use('*', async function uiSecurityHeaders(c, next) {
    await next();
    c.header('content-security-policy', CSP);
    c.header('cache-control', 'no-store');
  });
  app.get('/assets/:name', (c) => {
    const asset = ASSETS[c.req.param('name')];
    if (asset === undefined) return c.notFound();
    return c.body(asset.body, 200, { 'content-type': asset.type });
  });
  app.get('/', (c) => c.redirect('/ui/runs'));
  app.get('/runs', (c) =>
    c.html(
      uiShell({
        title: 'Runs',
        script: 'runs-page.js',
        // The page's script carries the shared code itself (built from real source files).
        common: false,
        main: RUNS_MAIN,
        dataset: {},
      }),
    ),
  );
  app.get('/runs/:id', (c) =>
    c.html(
      uiShell({
        title: `Run ${c.req.param('id')}`,
        script: 'run-page.js',
        // The run page's script carries the shared code itself (built from real source files).
        common: false,
        styles: ['ui.css', 'trace.css'],
        main: '<div id="run-status-line"></div>\n<div id="trace" data-testid="run-tree"></div>',
        dataset: { 'run-id': c.req.param('id') },
      }),
    ),
  );
  app.get('/agents/:id', (c) =>
    c.html(
      uiShell({
        title: `Agent ${c.req.param('id')}`,
        script: 'agent-page.js',
        dataset: { 'agent-id': c.req.param('id') },
      }),
    ),
  );
  return app;
}
