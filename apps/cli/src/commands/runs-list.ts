import { existsSync } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ListRunsOptions, RunRecord, StoredRunStatus } from '@rlm/memory';
import { totalUsage } from '@rlm/protocol';
import { safeParseTrajectory } from '@rlm/trace';

/** One root run as `rlm runs` shows it. Times are epoch milliseconds. */
export interface ListedRun {
  id: string;
  startedAt: number;
  endedAt: number | null;
  status: StoredRunStatus;
  model: string | null;
  /** The question the run was asked, from its `run-start` event; `null` when none was stored. */
  query: string | null;
  costUsd: number;
  tokens: number;
}

export interface ListRunsFilter {
  /** Where the CLI wrote trajectories: the query is read from there when the store has no events. */
  trajectoryDir?: string;
  status?: readonly StoredRunStatus[];
  /** Only runs started at or after this epoch ms. */
  since?: number;
  limit: number;
}

/**
 * The root runs recorded in the run store at `storePath`, newest first. A store that does not
 * exist yet holds no runs (and is not created by looking).
 */
export async function listRecordedRuns(
  storePath: string,
  filter: ListRunsFilter,
): Promise<ListedRun[]> {
  if (!existsSync(storePath)) return [];
  const { createStore } = await import('@rlm/memory');
  const store = await createStore({ kind: 'sqlite', path: storePath });
  try {
    const options: ListRunsOptions = {
      parentId: null,
      limit: filter.limit,
      ...(filter.status === undefined ? {} : { status: filter.status }),
      ...(filter.since === undefined ? {} : { createdAfter: filter.since }),
    };
    const { runs } = await store.runs.listRuns(options);
    const listed: ListedRun[] = [];
    for (const run of runs) {
      // The first stored event of a run is its `run-start`, which alone carries the query.
      const [first] = await store.runs.eventsAfter(run.id, 0, { limit: 1 });
      const query =
        first?.event.type === 'run-start'
          ? first.event.query
          : filter.trajectoryDir === undefined
            ? null
            : await queryInTrajectory(join(filter.trajectoryDir, `${run.id}.jsonl`));
      listed.push(listedRun(run, query));
    }
    return listed;
  } finally {
    await store.close();
  }
}

function listedRun(run: RunRecord, query: string | null): ListedRun {
  const total = totalUsage(run.usage);
  return {
    id: run.id,
    startedAt: run.createdAt,
    endedAt: run.endedAt,
    status: run.status,
    model: modelOf(run.config),
    query,
    costUsd: total.costUsd,
    tokens: total.inputTokens + total.outputTokens,
  };
}

/** The CLI records its settings under `settings` (and its flags under `cli`); others may not. */
function modelOf(config: RunRecord['config']): string | null {
  for (const key of ['settings', 'cli']) {
    const section = config[key];
    if (section !== null && typeof section === 'object' && !Array.isArray(section)) {
      const model = section['model'];
      if (typeof model === 'string') return model;
    }
  }
  return typeof config['model'] === 'string' ? config['model'] : null;
}

/** Bytes read from a trajectory's start, where its `run-start` line is. */
const HEAD_BYTES = 64 * 1024;
/** A trajectory read whole when its head did not hold the query (it was packed): at most this big. */
const WHOLE_BYTES = 8 * 1024 * 1024;

/**
 * The root query a trajectory file records, read from its first lines (the CLI's store keeps no
 * events); `null` when the file is missing or holds none.
 */
export async function queryInTrajectory(path: string): Promise<string | null> {
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch {
    return null;
  }
  const file = await open(path, 'r');
  let head: string;
  try {
    const buffer = Buffer.alloc(Math.min(size, HEAD_BYTES));
    const { bytesRead } = await file.read(buffer, 0, buffer.length, 0);
    head = buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await file.close();
  }
  const lines = head.split('\n');
  // The last line may be cut by the byte limit.
  if (size > HEAD_BYTES) lines.pop();
  for (const line of lines) {
    const query = runStartQuery(line);
    if (query !== undefined) return query;
  }
  if (size <= HEAD_BYTES || size > WHOLE_BYTES) return null;
  const { readFile } = await import('node:fs/promises');
  const parsed = safeParseTrajectory(await readFile(path, 'utf8'));
  if (!parsed.ok) return null;
  for (const record of parsed.value) {
    if (record.kind === 'event' && record.event.type === 'run-start' && record.event.depth === 0)
      return record.event.query;
  }
  return null;
}

function runStartQuery(line: string): string | undefined {
  if (!line.includes('"run-start"')) return undefined;
  try {
    const record = JSON.parse(line) as { kind?: unknown; event?: Record<string, unknown> };
    const event = record.event;
    if (record.kind !== 'event' || event?.['type'] !== 'run-start') return undefined;
    if (event['depth'] !== 0 || typeof event['query'] !== 'string') return undefined;
    return event['query'];
  } catch {
    return undefined;
  }
}
