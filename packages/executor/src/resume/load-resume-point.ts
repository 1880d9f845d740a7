import type { RunStore } from '@rlm/memory';
import { type JsonValue, RlmError } from '@rlm/protocol';
import { contextsHash } from '../trajectory/context-fingerprint.js';
import { type CheckpointData, parseCheckpointData } from './checkpoint-data.js';

/** Which run to continue and over what: the payloads the run was started with. */
export interface ResumeTarget {
  runId: string;
  context: JsonValue;
  /** The run's payloads after the first, as given to `completion()`. */
  contexts?: readonly JsonValue[] | undefined;
}

/**
 * The checkpoint a run would resume from, after checking that it has one and that `context` is
 * the one it started with. Needs no model, so callers can check before resolving credentials.
 *
 * @throws RlmError `executor.no_checkpoint` without a run store or checkpoint;
 *   `executor.replay_divergence` when `context` is not the run's context
 */
export async function loadResumePoint(
  store: RunStore | undefined,
  { runId, context, contexts }: ResumeTarget,
): Promise<CheckpointData> {
  const missing = (why: string) =>
    new RlmError({
      code: 'executor.no_checkpoint',
      message: `Run ${runId} cannot be resumed: ${why}`,
      details: { runId },
    });
  if (store === undefined) throw missing('the RLM has no `runStore`');
  const checkpoint = await store.latestCheckpoint(runId);
  if (checkpoint === undefined) throw missing('it has no checkpoint (no turn completed)');
  const data = parseCheckpointData(runId, checkpoint.data);
  const actual = contextsHash(context, contexts);
  if (actual !== data.contextHash) {
    throw new RlmError({
      code: 'executor.replay_divergence',
      message: `Run ${runId} was started over a different context (${data.contextHash}, given ${actual})`,
      details: { step: 0, expected: data.contextHash, actual },
    });
  }
  return data;
}

/**
 * Checks that run `runId` in `store` can be resumed over `context`, without a model: it has a
 * checkpoint and `context` (with `contexts`) is what it started with. Resolves to the last
 * completed turn (0-based).
 *
 * @throws RlmError `executor.no_checkpoint`, `executor.replay_divergence`
 * @example
 * await checkResumable(store.runs, { runId, context }); // before asking for credentials
 */
export async function checkResumable(
  store: RunStore,
  target: ResumeTarget,
): Promise<{ iteration: number }> {
  const { iteration } = await loadResumePoint(store, target);
  return { iteration };
}
