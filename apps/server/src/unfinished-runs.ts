import type { RunRecord, RunStore } from '@rlm/memory';
import type { RunEvent } from '@rlm/protocol';

/** The `error` event a run gets when a restarted server runs it again from its first turn. */
export function restartNotice(runId: string, at: number, previous: string): RunEvent {
  return {
    v: 1,
    runId,
    parentRunId: null,
    rootRunId: runId,
    depth: 0,
    at,
    type: 'error',
    error: {
      code: 'server.unavailable',
      message: `The server restarted while the run was ${previous}; it runs again from its first turn, reusing the model responses recorded so far`,
    },
  };
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
