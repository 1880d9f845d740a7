import type { RunRecord, RunStore } from '@rlm/memory';
import type { RunEvent } from '@rlm/protocol';
import type { ContextStore } from './context-store.js';
import { ownProfile } from './own-profile.js';
import { type RunMeta, runMetaSchema } from './run-meta.js';
import type { ServerConfig } from './server-config.js';

/**
 * An `error` event (code `server.unavailable`) the server writes into a run's log when the process
 * stops or starts under it; the run goes on afterwards, so it is a notice, not the run's end.
 */
export function serverNotice(
  runId: string,
  { at, message }: { at: number; message: string },
): RunEvent {
  return {
    v: 1,
    runId,
    parentRunId: null,
    rootRunId: runId,
    depth: 0,
    at,
    type: 'error',
    error: { code: 'server.unavailable', message },
  };
}

/** What a restarted server (or a replica taking a run over) tells the run's log it does with it. */
export function restartMessage(
  previous: string,
  {
    checkpointTurn,
    recordedCalls,
    takenOver = false,
  }: { checkpointTurn: number | undefined; recordedCalls: number; takenOver?: boolean },
): string {
  const restarted = takenOver
    ? `The replica executing the run stopped while it was ${previous}, and another one took it over`
    : `The server restarted while the run was ${previous}`;
  if (checkpointTurn !== undefined) {
    return `${restarted}; it resumes from its checkpoint after turn ${checkpointTurn + 1} (earlier turns are not run again)`;
  }
  if (recordedCalls === 0) return `${restarted}; it starts from its first turn`;
  return `${restarted}; it has no checkpoint yet, so it runs again from its first turn, reusing the ${recordedCalls} model responses recorded so far`;
}

/**
 * Whether a run found unfinished at start-up can continue, or why it cannot: only plain runs (a
 * chat or agent run belonged to an HTTP request that died with the process), when `onRestart` is
 * `resume` and its profile and stored context still exist.
 */
export async function restartPlan(
  record: RunRecord,
  { config, contexts }: { config: ServerConfig; contexts: ContextStore },
): Promise<{ rerun: RunMeta } | { reason: string }> {
  const meta = runMetaSchema.safeParse(record.config);
  if (!meta.success) return { reason: 'the run has no server metadata' };
  if (meta.data.kind !== 'run') {
    return {
      reason: `${meta.data.kind} runs belong to an HTTP request that ended with the process`,
    };
  }
  if (config.onRestart !== 'resume') return { reason: 'onRestart is "interrupt"' };
  if (ownProfile(config, meta.data.profile) === undefined) {
    return { reason: `profile "${meta.data.profile}" is no longer configured` };
  }
  if ((await contexts.meta(meta.data.contextId)) === undefined) {
    return { reason: 'the run context is no longer stored' };
  }
  return { rerun: meta.data };
}

/** Root runs stored as `queued` or `running`, oldest first (so the queue keeps its order). */
export async function unfinishedRuns(store: RunStore): Promise<RunRecord[]> {
  const found: RunRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.listRuns({
      status: ['queued', 'running'],
      parentId: null,
      limit: 500,
      ...(cursor === undefined ? {} : { cursor }),
    });
    found.push(...page.runs);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  // Oldest first, so the queue keeps its original order.
  return found.reverse();
}
