/**
 * Browser code of `/ui/runs/:id`. The tree itself is not built here: the page shows the HTML
 * fragment of `GET /v1/runs/:id/view` under the trace viewer, the page `rlm trace --html` writes,
 * so there is one renderer. While the run goes, the page follows its SSE events with `fetch` (so the
 * key travels in a header; EventSource cannot send one), resumes after a drop from the last event
 * id, and fetches the view again when events arrive: at most every REFRESH_MS, one request at a
 * time, and always once more after the last event. Turns the reader opened or closed stay so.
 *
 * Each refresh is one request (the view carries the run's status in a header) and REFRESH_MS is
 * one second, because the page spends the key's rate limit (120 requests a minute by default):
 * a busy run must not use it all. A 429 waits for its retry-after.
 */
import { api, byId, el, setConnection, withKey } from './common.js';

const runId = document.body.dataset['runId'] ?? '';
const base = `/v1/runs/${encodeURIComponent(runId)}`;
const REFRESH_MS = 1000;
const refresher: { wanted: boolean; pumping: Promise<void> | null; lastAt: number } = {
  wanted: false,
  pumping: null,
  lastAt: 0,
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function showRun(run: { status: string; profile: string; model: string }): void {
  byId('run-status-line').replaceChildren(
    el('span', { text: 'Status ' }),
    el('span', { id: 'run-status', 'data-testid': 'run-status' }),
    el('span', { class: 'hint', text: ` · profile ${run.profile} · ${run.model}` }),
  );
  showStatus(run.status);
}

function showStatus(status: string): void {
  const badge = byId('run-status');
  badge.className = `run-status ${status}`;
  badge.textContent = status;
}

/** Swaps in a newer view, keeping the open/closed state of every <details> the page already had. */
function showView(html: string): void {
  const trace = byId('trace');
  const open = new Map<string, boolean>();
  for (const node of trace.querySelectorAll<HTMLDetailsElement>('details[data-key]')) {
    open.set(node.dataset['key'] ?? '', node.open);
  }
  // The fragment is rendered by the server with every text escaped, and the page's CSP lets no
  // inline script or handler run.
  trace.innerHTML = html;
  for (const node of trace.querySelectorAll<HTMLDetailsElement>('details[data-key]')) {
    const key = node.dataset['key'] ?? '';
    const wasOpen = open.get(key);
    if (wasOpen !== undefined) node.open = wasOpen;
  }
  // The trace viewer (served before this script) builds the timeline, the open turns and the
  // search; it keeps the reader's search and timeline position across these swaps.
  viewer()?.mount(trace);
}

/** The trace viewer `TRACE_VIEWER_JS` installs, when it was loaded. */
function viewer(): { mount(host: Element): void } | undefined {
  return (globalThis as { rlmTraceViewer?: { mount(host: Element): void } }).rlmTraceViewer;
}

/** Shows the newest view; returns the id of the last event it includes (0 if it could not). */
async function refresh(): Promise<number> {
  refresher.lastAt = Date.now();
  const view = await api(`${base}/view`);
  if (view.status === 429) {
    const seconds = Number(view.headers.get('retry-after')) || 1;
    refresher.lastAt = Date.now() + seconds * 1000 - REFRESH_MS;
    refresher.wanted = true;
    return 0;
  }
  if (!view.ok) return 0;
  const status = view.headers.get('x-run-status');
  if (status) showStatus(status);
  showView(await view.text());
  return Number(view.headers.get('x-last-event-id')) || 0;
}

/** Refreshes while refreshes are wanted, at most every REFRESH_MS; stops when the key is refused. */
async function pumpRefreshes(): Promise<void> {
  while (refresher.wanted) {
    const wait = refresher.lastAt + REFRESH_MS - Date.now();
    if (wait > 0) await sleep(wait);
    refresher.wanted = false;
    try {
      await refresh();
    } catch (error) {
      if (String(error).includes('unauthorized')) return;
    }
  }
}

/** Asks for a refresh; resolves once the view reflects everything asked for so far. */
function scheduleRefresh(): Promise<void> {
  refresher.wanted = true;
  refresher.pumping ??= pumpRefreshes().finally(() => {
    refresher.pumping = null;
  });
  return refresher.pumping;
}

interface SseFields {
  event?: string;
  id?: string;
}

/** An SSE parser: feed it text as it arrives; it calls `onEvent` with each complete event. */
function sseParser(onEvent: (fields: SseFields) => void): (text: string) => void {
  let buffer = '';
  let fields: SseFields = {};
  const takeLine = (line: string): void => {
    if (line === '') {
      onEvent(fields);
      fields = {};
      return;
    }
    if (line[0] === ':') return;
    const colon = line.indexOf(':');
    const name = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (name === 'event' || name === 'id') fields[name] = value;
  };
  return (text) => {
    buffer += text;
    for (let newline = buffer.indexOf('\n'); newline >= 0; newline = buffer.indexOf('\n')) {
      takeLine(buffer.slice(0, newline).replace(/\r$/, ''));
      buffer = buffer.slice(newline + 1);
    }
  };
}

/** Reads one SSE stream; the last event id seen, and whether it said the run has ended. */
async function readEvents(
  response: Response,
  from: number,
): Promise<{ last: number; ended: boolean }> {
  const seen = { last: from, ended: false };
  const body = response.body;
  if (body === null) return seen;
  const feed = sseParser((fields) => {
    if (fields.event === 'end') seen.ended = true;
    else if (fields.id !== undefined) {
      seen.last = Number(fields.id);
      void scheduleRefresh();
    }
  });
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return seen;
    feed(value);
  }
}

/** Follows the run's events from after `last`; true once the stream says the run has ended. */
async function follow(from: number): Promise<boolean> {
  let last = from;
  for (;;) {
    let ended = false;
    try {
      setConnection('live');
      const response = await api(`${base}/events`, {
        headers: { 'last-event-id': String(last) },
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      ({ last, ended } = await readEvents(response, last));
    } catch (error) {
      if (String(error).includes('unauthorized')) return false;
    }
    if (ended) return true;
    setConnection('reconnecting…');
    await sleep(1000);
  }
}

withKey(async () => {
  const response = await api(base);
  if (!response.ok) {
    setConnection(`run not found (${response.status})`);
    return;
  }
  showRun(await response.json());
  if (!(await follow(await refresh()))) return;
  // 'finished' only once the view shows everything up to the end of the run.
  await scheduleRefresh();
  setConnection('finished');
});
