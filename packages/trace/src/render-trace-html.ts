import { html, trustedHtml } from './html.js';
import type { RecordedExchange } from './recorded-exchanges.js';
import { renderRunFragment } from './render-run-html.js';
import { TRACE_CSS } from './trace-styles.js';
import type { TraceTree } from './trace-tree.js';
import { TRACE_VIEWER_JS } from './trace-viewer-script.generated.js';

/** Options of `renderTraceHtml`. */
export interface RenderTraceHtmlOptions {
  /** The page title and heading. @default `rlm trace <root run id>` */
  title?: string;
  /** The trajectory's model exchanges, for `llm_query` prompts and replies in full (see `renderRunHtml`). */
  exchanges?: readonly RecordedExchange[];
}

/** Page-level rules that only the standalone file needs; the fragment's own rules are `TRACE_CSS`. */
const PAGE_CSS = `
body{margin:1.5rem auto;max-width:84rem;padding:0 1rem;background:#fafafa;font:14px/1.45 system-ui,sans-serif}
h1{font-size:1.3rem}
`;

// The script is this package's own code: nothing in it may end the element it is inlined in.
if (/<\/script/i.test(TRACE_VIEWER_JS))
  throw new Error('the trace viewer script contains </script');

/**
 * One self-contained HTML document for a run tree: `renderRunHtml`'s markup with its style sheet
 * and the viewer script (`TRACE_VIEWER_JS`) inline. No external assets and no network: the file
 * opens anywhere, offline (and can be attached to a bug report).
 *
 * @example
 * await writeFile('run.html', renderTraceHtml(tree, { exchanges: recordedExchanges(records) }));
 */
export function renderTraceHtml(
  tree: TraceTree,
  { title, exchanges }: RenderTraceHtmlOptions = {},
): string {
  const heading = title ?? `rlm trace ${tree.rootRunId ?? ''}`.trim();
  // The style sheet and the script are constants of this package: the only markup that passes unescaped.
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${heading}</title>
<style>${trustedHtml(PAGE_CSS + TRACE_CSS)}</style>
</head>
<body>
<h1>${heading}</h1>
${renderRunFragment(tree, exchanges === undefined ? {} : { exchanges })}<script>${trustedHtml(TRACE_VIEWER_JS)}</script>
</body>
</html>
`.toString();
}
