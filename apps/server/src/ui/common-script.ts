/**
 * Browser code shared by the UI pages: the key (from `#key=` or sessionStorage, never sent
 * anywhere but the Authorization header), `api()` and a small DOM helper that only sets text.
 */
export const COMMON_JS = `
'use strict';
const KEY_STORAGE = 'rlm-server-key';
function takeKeyFromHash() {
  const match = /(?:^#|&)key=([^&]+)/.exec(location.hash);
  if (match) {
    sessionStorage.setItem(KEY_STORAGE, decodeURIComponent(match[1]));
    history.replaceState(null, '', location.pathname + location.search);
  }
}
function withKey(start) {
  takeKeyFromHash();
  if (sessionStorage.getItem(KEY_STORAGE)) return start();
  const form = document.getElementById('key-form');
  form.hidden = false;
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    sessionStorage.setItem(KEY_STORAGE, document.getElementById('key-input').value.trim());
    form.hidden = true;
    start();
  });
}
async function api(path, init) {
  const headers = new Headers((init && init.headers) || {});
  headers.set('authorization', 'Bearer ' + sessionStorage.getItem(KEY_STORAGE));
  const response = await fetch(path, Object.assign({}, init, { headers }));
  if (response.status === 401) {
    sessionStorage.removeItem(KEY_STORAGE);
    setConnection('unauthorized: reload and enter a valid key');
    throw new Error('unauthorized');
  }
  return response;
}
function setConnection(text) { document.getElementById('connection').textContent = text; }
function el(tag, attributes, children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (name === 'text') node.textContent = value;
    else if (name === 'onclick') node.addEventListener('click', value);
    else node.setAttribute(name, value);
  }
  for (const child of children || []) if (child) node.append(child);
  return node;
}
`;
