import type { RunRecord } from '@rlm/memory';
import { RlmError } from '@rlm/protocol';
import { allEvents } from '../all-events.js';
import type { PendingClaim, PendingClaims } from '../cluster/pending-claims.js';
import type { RunMeta } from '../run-meta.js';
import { outcomeFromEvents, reopenedAt, serverEndEvents } from '../run-outcome.js';
import { restartPlan, serverNotice } from '../unfinished-runs.js';
import { enqueue, persist, type RunLifecycle, type RunTarget } from './run-lifecycle.js';
import type { SubmitRunInput } from './submit-run-input.js';

/** How a run found unfinished was taken up. */
export type TakeUpResult = 'resumed' | 'interrupted' | 'ended' | 'declined';

/** A replica's fresh claim on the run it takes up, and the claims it is held among. */
export interface TakeUpClaim {
  claim: PendingClaim;
  claims: PendingClaims;
}

/** How to take a run up: the notice it gets, and in a cluster this replica's claim on it. */
export interface TakeUpOptions {
  /** The notice recorded when the run continues. */
  message: (checkpointTurn: number | undefined, recordedCalls: number) => string;
  taken?: TakeUpClaim;
}

/**
 * Continues an unfinished run found in the store (at start-up, or in a cluster when its
 * replica died or gave it up): resumed from its checkpoint when it can be, else interrupted.
 * In a cluster `taken` is this replica's fresh claim on it, handed over with a resumed run.
 */
export async function takeUpRun(
  life: RunLifecycle,
  record: RunRecord,
  options: TakeUpOptions,
): Promise<TakeUpResult> {
  const claim = options.taken?.claim;
  const target = {
    runId: record.id,
    store: claim === undefined ? life.store : life.store.fenced(claim.lease),
  };
  const events = await allEvents(life.store, record.id);
  // A holder that died between its run-end event and the status: the run did end.
  const ended = outcomeFromEvents(events, { reopenedAt: reopenedAt(record) });
  if (ended !== undefined) {
    await target.store.updateRun(record.id, { status: ended.status, usage: ended.usage });
    life.metrics.runFinished(ended.status);
    return 'ended';
  }
  const plan = await restartPlan(record, { config: life.config, contexts: life.contexts });
  if ('rerun' in plan) {
    // In a cluster a run that never started (fresh off the queue) just starts: its normal path.
    const notice = claim === undefined || events.length > 0;
    return resumeRun(life, { record, rerun: plan.rerun, notice, target }, options);
  }
  const error = {
    code: 'server.unavailable',
    message: `${claim === undefined ? 'the server restarted' : 'the replica executing the run stopped'}; ${plan.reason}`,
  };
  await persist(
    life,
    target,
    serverEndEvents(record.id, { status: 'interrupted', at: life.now(), error }),
  );
  await target.store.updateRun(record.id, { status: 'interrupted' });
  life.metrics.runFinished('interrupted');
  return 'interrupted';
}

/** A run to resume: its record, how to run it again, whether it gets a notice, where it writes. */
interface Resumption {
  record: RunRecord;
  rerun: RunMeta;
  notice: boolean;
  target: RunTarget;
}

/** Queues the run again here, from its latest checkpoint when it has one. */
async function resumeRun(
  life: RunLifecycle,
  { record, rerun, notice, target }: Resumption,
  { message, taken }: TakeUpOptions,
): Promise<TakeUpResult> {
  const { store } = life;
  const { owner, query, contextId, profile, budget, outputSchema, escalation } = rerun;
  const claim = taken?.claim;
  const checkpoint = await store.latestCheckpoint(record.id);
  const recorded = await store.trajectory(record.id);
  const calls = recorded.filter((item) => item.kind === 'model-exchange').length;
  if (notice) {
    const text = message(checkpoint?.turn, calls);
    await persist(life, target, [serverNotice(record.id, { at: life.now(), message: text })]);
  }
  if (claim?.lost !== undefined) throw claimLost(claim);
  // Draining since the claim (a shutdown): the run is left to another replica, at once.
  if (claim !== undefined && !life.accepting) return 'declined';
  // From here on the run and its lease are the run queue's (no await until enqueued).
  if (taken !== undefined) taken.claims.handOver(taken.claim);
  life.queue.reserve(owner);
  const input: SubmitRunInput = {
    principal: { keyId: owner, name: owner, role: 'user' },
    kind: 'run',
    query,
    contextId,
    profileName: profile,
    budget,
    recorded,
    ...(checkpoint === undefined ? {} : { resume: true }),
    ...(outputSchema === undefined ? {} : { outputSchema }),
    ...(escalation === undefined ? {} : { escalation }),
  };
  void enqueue(life, { runId: record.id, input, lease: claim?.lease });
  return 'resumed';
}

/** A claim lost while its run was taken up, before anything was written under it. */
function claimLost(claim: PendingClaim): RlmError<'memory.lease_lost'> {
  return new RlmError({
    code: 'memory.lease_lost',
    message: `The claim on run ${JSON.stringify(claim.runId)} (epoch ${claim.lease.epoch}) was lost while taking the run up: ${claim.lost}`,
    details: { runId: claim.runId, holder: claim.lease.holder },
  });
}
