import type { RunLease } from '@rlm/memory';
import type { Logger } from 'pino';
import type { RunCoordinator } from './run-coordinator.js';

/** What the loops need from the run manager. */
export interface ClusterLoopsOptions {
  coordinator: RunCoordinator;
  logger: Logger;
  /** How often an idle replica looks at the queue and for lapsed leases without being woken. */
  pollMs: number;
  /** Runs this replica can start now. */
  freeSlots(): number;
  /** Claims a run (from the queue or with a lapsed lease) and executes or ends it. */
  takeOver(runId: string): Promise<void>;
  /** The leases of the runs this replica executes. */
  leases(): { runId: string; lease: RunLease }[];
  /**
   * The leases of runs claimed and still being taken up: renewed like the others, but their
   * cancel requests wait until the run executes (there is nothing to cancel here before).
   */
  claims(): { runId: string; lease: RunLease }[];
  renew(lease: RunLease): Promise<RunLease | undefined>;
  renewed(runId: string, lease: RunLease): void;
  /** The lease is gone: stop the run without writing anything more. */
  lost(runId: string, reason: string): void;
  cancel(runId: string): void;
}

/** The background work of a replica; see `startClusterLoops`. */
export interface ClusterLoops {
  /** Look at the queue now (a run was queued, or a slot freed up). */
  wake(): void;
  /** Takes no more runs (a shutdown); leases of running runs are still renewed. */
  stopTaking(): void;
  /** Stops everything; call once no run is left. */
  close(): Promise<void>;
}

/**
 * Starts a replica's two loops. The taker fills free slots from the queue (pg-boss) and from
 * lapsed leases (runs whose replica died or gave them up), woken by notifications and otherwise
 * every `pollMs`. The heartbeat renews this replica's leases every `heartbeatMs`; a lease that
 * cannot be renewed before it lapses stops its run here (another replica takes it), and cancel
 * requests for local runs that a notification may have missed are picked up there too.
 */
export function startClusterLoops(options: ClusterLoopsOptions): ClusterLoops {
  const { coordinator, logger } = options;
  let taking = true;
  let closed = false;
  let wakeUp: (() => void) | undefined;
  let woken = false;

  const wake = () => {
    woken = true;
    wakeUp?.();
  };
  const unsubscribe = coordinator.subscribe({ wake, cancel: options.cancel });

  const idle = () =>
    new Promise<void>((resolve) => {
      if (woken) return resolve();
      const timer = setTimeout(done, options.pollMs);
      function done() {
        clearTimeout(timer);
        wakeUp = undefined;
        resolve();
      }
      wakeUp = done;
    });

  const takeRound = async () => {
    const slots = options.freeSlots();
    if (slots <= 0) return;
    await coordinator.fetch(slots, options.takeOver);
    const left = options.freeSlots();
    if (left <= 0) return;
    for (const lease of await coordinator.lapsed(left)) await options.takeOver(lease.runId);
  };

  const taker = (async () => {
    while (taking) {
      woken = false;
      try {
        await takeRound();
      } catch (error) {
        logger.warn({ err: error }, 'taking runs failed; trying again');
      }
      if (taking) await idle();
    }
  })();

  let beating = false;
  const heartbeat = setInterval(() => {
    if (beating || closed) return;
    beating = true;
    void beat().finally(() => {
      beating = false;
    });
  }, coordinator.heartbeatMs);

  async function beat(): Promise<void> {
    const held = options.leases();
    for (const { runId, lease } of [...held, ...options.claims()]) {
      try {
        const renewed = await options.renew(lease);
        if (renewed === undefined) options.lost(runId, 'another replica took the run over');
        else options.renewed(runId, renewed);
      } catch (error) {
        // Unreachable database: keep the run while the lease may still be live, no longer.
        if (Date.now() >= lease.expiresAt) {
          options.lost(runId, 'the lease could not be renewed before it lapsed');
        } else logger.warn({ runId, err: error }, 'lease renewal failed; retrying');
      }
    }
    try {
      const cancels = await coordinator.cancelsFor(held.map((entry) => entry.runId));
      for (const runId of cancels) {
        options.cancel(runId);
        await coordinator.clearCancel(runId);
      }
    } catch (error) {
      logger.warn({ err: error }, 'reading cancel requests failed');
    }
  }

  return {
    wake,
    stopTaking() {
      taking = false;
      wakeUp?.();
    },
    async close() {
      taking = false;
      closed = true;
      wakeUp?.();
      clearInterval(heartbeat);
      unsubscribe();
      await taker;
    },
  };
}
