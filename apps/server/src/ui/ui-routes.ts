import { TRACE_CSS } from '@rlm/trace';
import { Hono } from 'hono';
import type { AppEnv } from '../app-env.js';
import { AGENT_PAGE_JS } from './agent-page-script.js';
import { COMMON_JS } from './common-script.generated.js';
import { RUN_PAGE_JS } from './run-page-script.generated.js';
import { uiShell } from './ui-shell.js';
import { UI_CSS } from './ui-styles.js';

/** Scripts and styles come only from this server; no inline script can run. */
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const ASSETS: Record<string, { body: string; type: string }> = {
  'common.js': { body: COMMON_JS, type: 'text/javascript; charset=utf-8' },
  'run-page.js': { body: RUN_PAGE_JS, type: 'text/javascript; charset=utf-8' },
  'agent-page.js': { body: AGENT_PAGE_JS, type: 'text/javascript; charset=utf-8' },
  'ui.css': { body: UI_CSS, type: 'text/css; charset=utf-8' },
  // The trace view's own style sheet, the one `rlm trace --html` inlines.
  'trace.css': { body: TRACE_CSS, type: 'text/css; charset=utf-8' },
};

/**
 * `/ui/runs/:id` and `/ui/agents/:id`: read-only pages. The HTML holds no data; the page asks for
 * the API key (or takes it from `#key=`) and reads everything through the authenticated API,
 * so the pages have exactly the API's access rules. The run page shows the trace view of
 * `GET /v1/runs/:id/view`, the same HTML `rlm trace --html` writes, refreshed while the run goes.
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
