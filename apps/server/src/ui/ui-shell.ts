import { html, joinHtml, trustedHtml } from '@rlm/trace';

/** What a UI page is made of; its data is fetched with the user's key, never put in the HTML. */
export interface UiShellOptions {
  title: string;
  /** The page's script under `/ui/assets/`, loaded after `common.js`. */
  script: string;
  /** Load `common.js` before the page's script (a script that bundles it does not need it). @default true */
  common?: boolean;
  /** `data-*` attributes of `<body>` that tell the script what to load. */
  dataset: Record<string, string>;
  /** Style sheets under `/ui/assets/`. @default ['ui.css'] */
  styles?: readonly string[];
  /** Static markup inside `<main>` for the script to fill (this server's constant, not escaped). @default '' */
  main?: string;
}

/** The HTML of a UI page: no data inline (it is fetched with the user's key), one script, its style sheets. */
export function uiShell({
  title,
  script,
  dataset,
  styles = ['ui.css'],
  main = '',
  common = true,
}: UiShellOptions): string {
  // Attribute names and `main` are this server's own constants; every value goes through `html`.
  const attributes = Object.entries(dataset).map(
    ([name, value]) => html`${trustedHtml(` data-${name}`)}="${value}"`,
  );
  const links = joinHtml(
    styles.map((name) => html`<link rel="stylesheet" href="/ui/assets/${name}">`),
    '\n',
  );
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
${links}
</head>
<body${attributes}>
<header><h1>${title}</h1><nav><a href="/ui/runs">All runs</a></nav><span id="connection" data-testid="connection"></span></header>
<form id="key-form" hidden>
  <label>API key <input id="key-input" type="password" autocomplete="off" required></label>
  <button type="submit">Open</button>
  <p class="hint">The key stays in this tab (sessionStorage) and is sent only as a Bearer header. You can also open this page as <code>…#key=&lt;your key&gt;</code>.</p>
</form>
<main id="app">${trustedHtml(main)}</main>
${common ? html`<script src="/ui/assets/common.js"></script>` : ''}
<script src="/ui/assets/${script}"></script>
</body>
</html>
`.toString();
}
