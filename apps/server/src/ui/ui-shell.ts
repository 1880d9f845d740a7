/** The HTML of a UI page: no data inline (it is fetched with the user's key), one script, one style sheet. */
export function uiShell({
  title,
  script,
  dataset,
}: {
  title: string;
  script: string;
  dataset: Record<string, string>;
}): string {
  const attributes = Object.entries(dataset)
    .map(([name, value]) => ` data-${name}="${escapeAttribute(value)}"`)
    .join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeAttribute(title)}</title>
<link rel="stylesheet" href="/ui/assets/ui.css">
</head>
<body${attributes}>
<header><h1>${escapeAttribute(title)}</h1><span id="connection" data-testid="connection"></span></header>
<form id="key-form" hidden>
  <label>API key <input id="key-input" type="password" autocomplete="off" required></label>
  <button type="submit">Open</button>
  <p class="hint">The key stays in this tab (sessionStorage) and is sent only as a Bearer header. You can also open this page as <code>…#key=&lt;your key&gt;</code>.</p>
</form>
<main id="app"></main>
<script src="/ui/assets/common.js"></script>
<script src="/ui/assets/${script}"></script>
</body>
</html>
`;
}

function escapeAttribute(value: string): string {
  return value
    .replaceAll('&', '&amp;')
    .replaceAll('"', '&quot;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;');
}
