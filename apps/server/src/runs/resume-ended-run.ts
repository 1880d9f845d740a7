import type { RunLease, RunRecord } from '@rlm/memory';
import { isResumableStatus, type JsonValue, RlmError } from '@rlm/protocol';
import { ownProfile } from '../own-profile.js';
import type { EffectiveBudget } from '../run-engine.js';
import { type RunMeta, runMetaSchema } from '../run-meta.js';
import type { RunBudgetRequest } from '../run-request.js';
import type { RunMaxima } from '../server-config.js';
import { announce, enqueue, type RunLifecycle } from './run-lifecycle.js';
import type { SubmitRunInput } from './submit-run-input.js';

/**
 * Why `POST /v1/runs/:id/resume` would refuse the run, or undefined when it would continue it.
 * The run view's `resumable` is this answer, so no door offers a resume the route refuses: the
 * run is a `run` (chat and agent runs end with their request), not active anywhere, ended in one
 * of the run contract's `RESUMABLE_STATUSES`, its profile and context are still there, and it has
 * a checkpoint (a run stopped during its first turn has nothing to continue from).
 */
export async function resumeRefusal(
  life: RunLifecycle,
  record: RunRecord,
): Promise<string | undefined> {
  const meta = runMetaSchema.safeParse(record.config);
  if (!meta.success) return 'it has no server metadata';
  if (meta.data.kind !== 'run') {
    return `${meta.data.kind} runs end with their request; send a new one`;
  }
  if (life.active.has(record.id) || !isResumableStatus(record.status)) {
    return record.status === 'queued' || record.status === 'running' || life.active.has(record.id)
      ? 'it has not ended'
      : `it ended ${record.status}; only a run that was cancelled, stopped by a budget or its wall time, or interrupted can be continued`;
  }
  if (ownProfile(life.config, meta.data.profile) === undefined) {
    return `its profile "${meta.data.profile}" is no longer configured`;
  }
  if ((await life.contexts.meta(meta.data.contextId)) === undefined) {
    return 'its context is no longer stored';
  }
  if ((await life.store.latestCheckpoint(record.id)) === undefined) {
    return 'it stopped before its first turn finished (it has no checkpoint); start it again';
  }
  return undefined;
}

/** The limits a resumed run gets: those asked for (capped at the server's maxima), else its own. */
export function resumedBudget(
  budget: EffectiveBudget,
  requested: RunBudgetRequest | undefined,
  maxima: RunMaxima,
): EffectiveBudget {
  const pick = (asked: number | undefined, own: number, max: number) =>
    asked === undefined ? own : Math.min(asked, max);
  return {
    maxIterations: pick(requested?.maxIterations, budget.maxIterations, maxima.maxIterations),
    maxDepth: pick(requested?.maxDepth, budget.maxDepth, maxima.maxDepth),
    maxTokens: pick(requested?.maxTokens, budget.maxTokens, maxima.maxTokens),
    maxCostUsd: pick(requested?.maxCostUsd, budget.maxCostUsd, maxima.maxCostUsd),
    maxWallTimeMs: pick(requested?.maxWallTimeMs, budget.maxWallTimeMs, maxima.maxWallTimeMs),
    maxSubcalls: pick(requested?.maxSubcalls, budget.maxSubcalls, maxima.maxSubcalls),
  };
}

/**
 * Continues an ended run here from its latest checkpoint, as the same run (`POST
 * /v1/runs/:id/resume`): its finished turns, and a coordinator's finished tasks, are not run
 * again, and the model responses its earlier attempt recorded answer the same requests again.
 * The run is `queued` again with the new limits in its metadata (so a replica taking it over
 * keeps them); in a cluster this replica claims it first.
 *
 * @throws RlmError `server.conflict` naming why the run cannot be resumed,
 *   `server.rate_limited` (this key's concurrent runs), `server.unavailable` while shutting down
 */
export async function resumeEndedRun(
  life: RunLifecycle,
  { record, meta, budget }: { record: RunRecord; meta: RunMeta; budget: EffectiveBudget },
): Promise<RunRecord> {
  const { id: runId } = record;
  if (!life.accepting) {
    throw new RlmError({
      code: 'server.unavailable',
      message: 'The server is shutting down and accepts no new runs',
      details: { reason: 'shutting down' },
    });
  }
  const refusal = await resumeRefusal(life, record);
  if (refusal !== undefined) throw notResumable(runId, refusal);
  const owner = meta.owner;
  life.coordinator.checkLimits(owner);
  // Taken before the next await, like a submission's slot (see `submitRun`).
  life.queue.reserve(owner);
  let lease: RunLease | undefined;
  let reopened: RunRecord;
  try {
    // In a cluster: refused while another replica holds the run (it is being resumed there).
    lease = await life.coordinator.claimNew(runId).catch((error: unknown) => {
      throw RlmError.is(error) ? error : notResumable(runId, 'another replica is resuming it');
    });
    const store = lease === undefined ? life.store : life.store.fenced(lease);
    const recorded = await store.trajectory(runId);
    const config = { ...meta, budget } as unknown as Record<string, JsonValue>;
    reopened = await store.updateRun(runId, { status: 'queued', config });
    // Two requests at once: the first one here continues the run.
    if (life.active.has(runId)) throw notResumable(runId, 'it has not ended');
    const input: SubmitRunInput = {
      principal: { keyId: owner, name: owner, role: 'user' },
      kind: 'run',
      query: meta.query,
      contextId: meta.contextId,
      profileName: meta.profile,
      budget,
      recorded,
      resume: true,
      ...(meta.outputSchema === undefined ? {} : { outputSchema: meta.outputSchema }),
      ...(meta.escalation === undefined ? {} : { escalation: meta.escalation }),
    };
    void enqueue(life, { runId, input, lease });
  } catch (error) {
    life.queue.unreserve(owner);
    if (lease !== undefined) await life.store.releaseLease(lease).catch(() => undefined);
    throw error;
  }
  announce(life, runId);
  return reopened;
}

function notResumable(runId: string, why: string): RlmError<'server.conflict'> {
  return new RlmError({
    code: 'server.conflict',
    message: `Run ${runId} cannot be resumed: ${why}`,
    details: { reason: 'run not resumable' },
  });
}
