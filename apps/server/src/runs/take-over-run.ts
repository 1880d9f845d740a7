import { RlmError } from '@rlm/protocol';
import type { PendingClaims } from '../cluster/pending-claims.js';
import type { RunCoordinator } from '../cluster/run-coordinator.js';
import { serverEndEvents } from '../run-outcome.js';
import { restartMessage } from '../unfinished-runs.js';
import { announce, persist, type RunLifecycle } from './run-lifecycle.js';
import { type TakeUpResult, takeUpRun } from './take-up-run.js';

/** What a replica's take-overs and remote cancels work with. */
export interface ClusterSide {
  life: RunLifecycle;
  /** The database's side: leases, the pg-boss queue, cancel requests, notifications. */
  database: RunCoordinator;
  claims: PendingClaims;
}

/**
 * Claims `runId` and takes it up, unless another replica holds it, it has ended or it was
 * deleted.
 */
export async function takeOverRun({ life, database, claims }: ClusterSide, runId: string) {
  const { store, logger } = life;
  if (life.active.has(runId) || claims.get(runId) !== undefined) return;
  const lease = await database.claim(runId).catch((error: unknown) => {
    // Deleted since its job was sent (a chat run's watchdog outlives the run): nothing to do,
    // and the job is done, instead of failing and coming back until its retries run out.
    if (error instanceof RlmError && error.code === 'memory.not_found') return undefined;
    throw error;
  });
  if (lease === undefined) return;
  logger.info({ runId, epoch: lease.epoch }, 'run claimed');
  // Every path from here hands the run to the queue or releases the claim, and logs either.
  const claim = claims.hold(lease);
  let result: TakeUpResult | 'gone' = 'gone';
  try {
    const record = await store.getRun(runId);
    if (record === undefined || !['queued', 'running'].includes(record.status)) return;
    result = await takeUpRun(life, record, {
      message: (turn, calls) =>
        restartMessage(record.status, {
          checkpointTurn: turn,
          recordedCalls: calls,
          takenOver: true,
        }),
      taken: { claim, claims },
    });
  } catch (error) {
    // The lease lapsed and another replica claimed the run: it continues it, nothing to undo.
    if (!RlmError.is(error, 'memory.lease_lost')) throw error;
    claim.lost ??= error.message;
    logger.warn({ runId, reason: claim.lost }, 'run handed over: lease lost');
  } finally {
    if (result !== 'resumed') await claims.release(claim);
  }
  if (result === 'ended' || result === 'interrupted') announce(life, runId);
  if (result === 'declined') await database.wakeWorkers().catch(() => undefined);
}

/**
 * Cancels a run this replica does not execute. With nobody holding it (queued), this replica
 * claims it and ends it; otherwise its holder is asked to, through the database.
 */
export async function cancelElsewhere(
  { life, database, claims }: ClusterSide,
  runId: string,
): Promise<boolean> {
  const { store, logger, now } = life;
  const lease = await database.claim(runId);
  if (lease === undefined) {
    await database.requestCancel(runId);
    return true;
  }
  logger.info({ runId, epoch: lease.epoch }, 'run claimed');
  const claim = claims.hold(lease);
  try {
    const record = await store.getRun(runId);
    if (record === undefined || !['queued', 'running'].includes(record.status)) return false;
    const fenced = store.fenced(lease);
    await persist(
      life,
      { runId, store: fenced },
      serverEndEvents(runId, { status: 'cancelled', at: now() }),
    );
    await fenced.updateRun(runId, { status: 'cancelled' });
    life.metrics.runFinished('cancelled');
    return true;
  } catch (error) {
    if (RlmError.is(error, 'memory.lease_lost')) claim.lost ??= error.message;
    throw error;
  } finally {
    await claims.release(claim);
    announce(life, runId);
  }
}
