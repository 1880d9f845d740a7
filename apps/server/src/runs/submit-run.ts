import type { RunLease, RunRecord } from '@rlm/memory';
import { RlmError } from '@rlm/protocol';
import type { ContextMeta } from '../context-store.js';
import { newRunId } from '../new-run-id.js';
import { type RunMeta, runMetaSchema } from '../run-meta.js';
import type { RunOutcome } from '../run-outcome.js';
import { profileNamed } from './execute-run.js';
import { enqueue, type RunLifecycle } from './run-lifecycle.js';
import type { SubmitRunInput, SubmittedRun } from './submit-run-input.js';

/** See `RunManager.submit`. */
export async function submitRun(life: RunLifecycle, input: SubmitRunInput): Promise<SubmittedRun> {
  const { contexts, coordinator, queue } = life;
  if (!life.accepting) {
    throw new RlmError({
      code: 'server.unavailable',
      message: 'The server is shutting down and accepts no new runs',
      details: { reason: 'shutting down' },
    });
  }
  const keyId = input.principal.keyId;
  coordinator.checkLimits(keyId);
  // The slot is taken before the first await, so concurrent submissions cannot all pass the
  // checks above and overshoot the limits.
  queue.reserve(keyId);
  const stored = queue.storing();
  const runId = input.runId ?? newRunId();
  const queued = coordinator.queues(input.kind);
  let record: RunRecord;
  let context: ContextMeta | undefined;
  let admitted: SubmitRunInput;
  let lease: RunLease | undefined;
  try {
    if (input.inlineContext !== undefined) {
      context = await contexts.saveValue(input.inlineContext, { owner: keyId, pending: true });
    }
    const contextId = context?.id ?? input.contextId;
    if (contextId === undefined) throw new Error('submit: expected contextId or inlineContext');
    admitted = { ...input, contextId, inlineContext: undefined };
    const meta: RunMeta = runMetaSchema.parse({
      kind: input.kind,
      owner: keyId,
      query: input.query,
      contextId,
      profile: input.profileName,
      model: profileNamed(life.config, input.profileName).model,
      budget: input.budget,
      agentId: input.agentId ?? null,
      ...(input.outputSchema === undefined ? {} : { outputSchema: input.outputSchema }),
      ...(input.escalation === undefined ? {} : { escalation: input.escalation }),
      contextOwned: context !== undefined,
    });
    record = await coordinator.createRun(
      { id: runId, status: 'queued', owner: keyId, config: meta },
      { runId, keyId, kind: input.kind, pendingContextId: context?.id },
    );
    if (context !== undefined) await contexts.commit(context);
    if (!queued) lease = await coordinator.claimNew(runId);
  } catch (error) {
    queue.unreserve(keyId);
    if (context !== undefined) await contexts.remove(context.id);
    throw error;
  } finally {
    stored();
  }
  life.hub.notify(runId);
  if (queued) {
    // The shared queue holds the run now; whichever replica claims it executes it.
    queue.unreserve(keyId);
    coordinator.queued();
    return { record, done: new Promise<RunOutcome>(() => undefined) };
  }
  return { record, done: enqueue(life, { runId, input: admitted, lease }) };
}
