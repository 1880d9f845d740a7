/**
 * Browser code shared by the UI pages: the key (from `#key=` or sessionStorage, never sent
 * anywhere but the Authorization header), `api()` and a small DOM helper that only sets text.
 * Built into the pages' scripts by scripts/embed-script.mjs (see the server's embed.json).
 */

const KEY_STORAGE = 'rlm-server-key';

/** An element the page's HTML always has. */
export function byId(id: string): HTMLElement {
  const element = document.getElementById(id);
  if (element === null) throw new Error(`the page has no #${id}`);
  return element;
}

function takeKeyFromHash(): void {
  const match = /(?:^#|&)key=([^&]+)/.exec(location.hash);
  if (match?.[1] !== undefined) {
    sessionStorage.setItem(KEY_STORAGE, decodeURIComponent(match[1]));
    history.replaceState(null, '', location.pathname + location.search);
  }
}

/** Runs `start` once there is a key: from the URL, this tab's storage, or the key form. */
export function withKey(start: () => unknown): void {
  takeKeyFromHash();
  if (sessionStorage.getItem(KEY_STORAGE)) {
    start();
    return;
  }
  const form = byId('key-form');
  form.hidden = false;
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const input = byId('key-input') as HTMLInputElement;
    sessionStorage.setItem(KEY_STORAGE, input.value.trim());
    form.hidden = true;
    start();
  });
}

/** `fetch` with the key; a 401 forgets the key and says so. */
export async function api(path: string, init?: RequestInit): Promise<Response> {
  const headers = new Headers(init?.headers ?? {});
  headers.set('authorization', `Bearer ${sessionStorage.getItem(KEY_STORAGE)}`);
  const response = await fetch(path, { ...init, headers });
  if (response.status === 401) {
    sessionStorage.removeItem(KEY_STORAGE);
    setConnection('unauthorized: reload and enter a valid key');
    throw new Error('unauthorized');
  }
  return response;
}

export function setConnection(text: string): void {
  byId('connection').textContent = text;
}

/**
 * An element with attributes (`text` sets its text, `onclick` a click handler; other values are
 * set as text, as the DOM would) and children.
 */
export function el(
  tag: string,
  attributes?: Record<string, unknown>,
  children?: readonly (Node | null | undefined)[],
): HTMLElement {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (name === 'text') node.textContent = String(value);
    else if (name === 'onclick' && typeof value === 'function') {
      node.addEventListener('click', value as EventListener);
    } else node.setAttribute(name, String(value));
  }
  for (const child of children ?? []) if (child) node.append(child);
  return node;
}
