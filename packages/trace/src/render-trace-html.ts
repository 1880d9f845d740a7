import { html, trustedHtml } from './html.js';
import { renderRunFragment } from './render-run-html.js';
import { TRACE_CSS } from './trace-styles.js';
import type { TraceTree } from './trace-tree.js';

/** Options of `renderTraceHtml`. */
export interface RenderTraceHtmlOptions {
  /** The page title and heading. @default `rlm trace <root run id>` */
  title?: string;
}

/** Page-level rules that only the standalone file needs; the fragment's own rules are `TRACE_CSS`. */
const PAGE_CSS = `
body{margin:2rem auto;max-width:70rem;padding:0 1rem;background:#fafafa;font:14px/1.45 system-ui,sans-serif}
h1{font-size:1.3rem}
`;

/**
 * One self-contained HTML document for a run tree: `renderRunHtml`'s fragment with its style sheet
 * inline. No scripts, no external assets, so the file opens anywhere (and can be attached to a
 * bug report).
 *
 * @example
 * await writeFile('run.html', renderTraceHtml(tree));
 */
export function renderTraceHtml(tree: TraceTree, { title }: RenderTraceHtmlOptions = {}): string {
  const heading = title ?? `rlm trace ${tree.rootRunId ?? ''}`.trim();
  // The style sheets are constants of this package: the only markup that passes unescaped.
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
${renderRunFragment(tree)}</body>
</html>
`.toString();
}
