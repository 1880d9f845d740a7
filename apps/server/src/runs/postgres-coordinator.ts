import type { RunLease } from '@rlm/memory';
import { startClusterLoops } from '../cluster/cluster-loops.js';
import { createPendingClaims } from '../cluster/pending-claims.js';
import type { RunCoordinator } from '../cluster/run-coordinator.js';
import type { Coordinator } from './coordinator.js';
import { cancelHere, loseLease, type RunLifecycle } from './run-lifecycle.js';
import { type ClusterSide, cancelElsewhere, takeOverRun } from './take-over-run.js';

/**
 * Replicas sharing Postgres: runs are admitted in the transaction that stores them (the database
 * counts every replica's runs), `run`s wait on the pg-boss queue for whichever replica has a free
 * slot, each executes under a lease its replica renews, and a run whose lease lapses (its replica
 * died or gave it up) is taken over by another. `database` is the cluster's side of this (see
 * `createRunCoordinator`).
 */
export function createPostgresCoordinator(
  life: RunLifecycle,
  database: RunCoordinator,
): Coordinator {
  const { store, logger } = life;
  /** Runs claimed here and not executing (yet); their leases are renewed too. */
  const claims = createPendingClaims({ store, logger });
  const side: ClusterSide = { life, database, claims };

  const loops = startClusterLoops({
    coordinator: database,
    logger,
    pollMs: database.pollMs,
    freeSlots: () => (life.accepting ? life.queue.freeSlots() : 0),
    takeOver: (runId) => takeOverRun(side, runId),
    leases: () =>
      [...life.active.entries()].flatMap(([runId, run]) =>
        run.lease === undefined || run.lostLease !== undefined ? [] : [{ runId, lease: run.lease }],
      ),
    claims: () => claims.leases(),
    renewed,
    lost,
    cancel: (runId) => {
      void cancelHere(life, runId);
    },
    renew: (lease) => database.renew(lease),
  });

  /** Routes a heartbeat's renewal to the run or the pending claim it belongs to. */
  function renewed(runId: string, lease: RunLease): void {
    const run = life.active.get(runId);
    if (run !== undefined) run.lease = lease;
    else {
      const claim = claims.get(runId);
      if (claim !== undefined) claim.lease = lease;
    }
  }

  /** Routes a heartbeat's news of a lost lease the same way. */
  function lost(runId: string, reason: string): void {
    const claim = life.active.has(runId) ? undefined : claims.get(runId);
    if (claim === undefined) loseLease(life, runId, reason);
    else claim.lost ??= reason;
  }

  const wakeWorkers = () => database.wakeWorkers().catch(() => undefined);

  return {
    // The database counts every replica's runs when the run is stored (see `admit`).
    checkLimits: () => undefined,
    createRun: (run, { runId, keyId, kind, pendingContextId }) =>
      store.createRun(run, {
        inTransaction: (sql) =>
          database.admit(sql, { runId, keyId, queued: kind === 'run', pendingContextId }),
      }),
    // A chat or agent run executes here, where its request waits; a `run` wherever there is room.
    queues: (kind) => kind === 'run',
    queued: () => loops.wake(),
    async claimNew(runId) {
      const lease = await database.claim(runId);
      if (lease === undefined)
        throw new Error(`submit: the new run ${runId} was claimed elsewhere`);
      logger.info({ runId, epoch: lease.epoch }, 'run claimed');
      return lease;
    },
    announce(runId) {
      void database
        .announce(runId)
        .catch((error: unknown) => logger.warn({ runId, err: error }, 'announce failed'));
    },
    released(run) {
      const { runId, lease } = run;
      if (lease === undefined) return;
      // With the claim's log line, the record of which replica held the run when. A lost lease
      // stopped counting at its expiry: no write of this replica could land after it.
      const lostFields =
        run.lostLease === undefined ? {} : { lostLease: true, expiredAt: lease.expiresAt };
      logger.info({ runId, epoch: lease.epoch, ...lostFields }, 'run released');
      if (run.lostLease !== undefined) return;
      void store
        .releaseLease(lease)
        .catch((error: unknown) => logger.warn({ runId, err: error }, 'lease release failed'));
    },
    gaveUp: async () => {
      await wakeWorkers();
    },
    slotFree: () => loops.wake(),
    // Nothing is taken at start-up: runs are taken over as their leases lapse.
    recover: async () => ({ requeued: [], interrupted: [] }),
    cancelElsewhere: (runId) => cancelElsewhere(side, runId),
    stopTaking: () => loops.stopTaking(),
    async close() {
      await loops.close();
      await wakeWorkers();
    },
  };
}
