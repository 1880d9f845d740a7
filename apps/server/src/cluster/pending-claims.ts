import type { RunLease, RunStore } from '@rlm/memory';
import type { Logger } from 'pino';

/**
 * A run this replica has claimed and is not executing (yet): it is being taken up (its events,
 * checkpoint and trajectory read, a notice written) or ended on a cancel request.
 */
export interface PendingClaim {
  readonly runId: string;
  /** The claim, as last renewed. */
  lease: RunLease;
  /** Why the lease was lost meanwhile; nothing more is written under it then. */
  lost?: string;
}

/**
 * The claims between `RunCoordinator.claim` and the moment their run executes here (handed over
 * to the run queue, whose leases the heartbeat renews) or is given up. Taking a run up reads and
 * writes the store, which on a busy machine can take longer than a lease: the heartbeat renews
 * these leases too, so no other replica claims the run meanwhile.
 */
export interface PendingClaims {
  /** Keeps `lease` renewed (see `leases`) until `handOver` or `release`. */
  hold(lease: RunLease): PendingClaim;
  get(runId: string): PendingClaim | undefined;
  /** The leases the heartbeat renews: the held claims whose lease is not lost. */
  leases(): { runId: string; lease: RunLease }[];
  /** The run executes here now, under `claim.lease`: its renewals go with the run from here on. */
  handOver(claim: PendingClaim): void;
  /**
   * Gives the run up: logs `run released` (with `lostLease` and `expiredAt` when the lease was
   * lost, like an executing run's release) and releases the lease unless it was lost.
   */
  release(claim: PendingClaim): Promise<void>;
}

export function createPendingClaims({
  store,
  logger,
}: {
  store: RunStore;
  logger: Logger;
}): PendingClaims {
  const held = new Map<string, PendingClaim>();
  return {
    hold(lease) {
      const claim: PendingClaim = { runId: lease.runId, lease };
      held.set(lease.runId, claim);
      return claim;
    },
    get: (runId) => held.get(runId),
    leases: () =>
      [...held.values()].flatMap((claim) =>
        claim.lost === undefined ? [{ runId: claim.runId, lease: claim.lease }] : [],
      ),
    handOver(claim) {
      held.delete(claim.runId);
    },
    async release(claim) {
      if (held.get(claim.runId) === claim) held.delete(claim.runId);
      const { runId, lease, lost } = claim;
      // Logged before the release: another replica can only claim the run after it, so the log
      // never shows two holders at once. A lost lease stopped counting at its expiry.
      const lostFields = lost === undefined ? {} : { lostLease: true, expiredAt: lease.expiresAt };
      logger.info({ runId, epoch: lease.epoch, ...lostFields }, 'run released');
      if (lost !== undefined) return;
      await store
        .releaseLease(lease)
        .catch((error: unknown) => logger.warn({ runId, err: error }, 'lease release failed'));
    },
  };
}
