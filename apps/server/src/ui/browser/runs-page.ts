/**
 * Browser code of `/ui/runs`: the caller's runs, newest first, read through `GET /v1/runs` with
 * the key (so a user sees only their own runs and an admin all of them), one page at a time,
 * optionally of one status. Each row links to the run's page.
 */
import { api, byId, el, setConnection, withKey } from './common.js';

interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

interface RunRow {
  id: string;
  status: string;
  model: string;
  query: string;
  createdAt: string;
  costUsd: number;
  usage: { models: Record<string, ModelUsage> };
}

const QUERY_CHARS = 120;
const page: { cursor: string | null } = { cursor: null };

function tokensOf(row: RunRow): number {
  let total = 0;
  for (const usage of Object.values(row.usage.models)) {
    total +=
      usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens + usage.outputTokens;
  }
  return total;
}

function cost(usd: number): string {
  return usd >= 1 ? `$${usd.toFixed(2)}` : `$${usd.toFixed(4)}`;
}

function count(value: number): string {
  return String(Math.round(value)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function rowOf(run: RunRow): HTMLElement {
  const query = run.query.length > QUERY_CHARS ? `${run.query.slice(0, QUERY_CHARS)}…` : run.query;
  return el('tr', { 'data-run-id': run.id }, [
    el('td', {}, [el('a', { href: `/ui/runs/${encodeURIComponent(run.id)}`, text: run.id })]),
    el('td', { text: run.createdAt.replace('T', ' ').replace(/\.\d+Z$/, 'Z') }),
    el('td', {}, [el('span', { class: `run-status ${run.status}`, text: run.status })]),
    el('td', { text: run.model }),
    el('td', { class: 'query', text: query, title: run.query }),
    el('td', { class: 'number', text: cost(run.costUsd) }),
    el('td', { class: 'number', text: count(tokensOf(run)) }),
  ]);
}

/** Loads the next page (the first when `fresh`) and appends its rows. */
async function load(fresh: boolean): Promise<void> {
  const body = byId('runs-body');
  if (fresh) {
    body.replaceChildren();
    page.cursor = null;
  }
  const params = new URLSearchParams({ limit: '50' });
  const status = (byId('status-filter') as HTMLSelectElement).value;
  if (status !== '') params.set('status', status);
  if (page.cursor !== null) params.set('cursor', page.cursor);
  const response = await api(`/v1/runs?${params}`);
  if (!response.ok) {
    setConnection(`could not list runs (HTTP ${response.status})`);
    return;
  }
  const { data, nextCursor } = (await response.json()) as {
    data: RunRow[];
    nextCursor: string | null;
  };
  for (const run of data) body.append(rowOf(run));
  page.cursor = nextCursor;
  byId('more').hidden = nextCursor === null;
  byId('runs-empty').hidden = body.childElementCount > 0;
  setConnection(`${body.childElementCount} run${body.childElementCount === 1 ? '' : 's'}`);
}

withKey(() => {
  byId('status-filter').addEventListener('change', () => void load(true));
  byId('more').addEventListener('click', () => void load(false));
  void load(true);
});
