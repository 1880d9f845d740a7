import type { RunLease, RunStore } from '@rlm/memory';
import type { RunCoordinator } from '../cluster/run-coordinator.js';

/** A `RunCoordinator` over one store's leases, with counters and switches for tests. */
export interface MemoryCoordinator extends RunCoordinator {
  /** Heartbeats so far (each reads the cancel requests of the runs it renewed). */
  readonly beats: number;
  /** Renewals that succeeded so far. */
  readonly renewals: number;
  /** While set, renewals fail as they do when the database cannot be reached. */
  unreachable: boolean;
}

/**
 * The lease side of a replica without Postgres or pg-boss: claims, renewals and lapsed leases go
 * to the run store as `createRunCoordinator` sends them; there is no job queue (runs arrive as
 * lapsed leases, as when their replica died), and admission is not supported.
 */
export function memoryCoordinator(
  store: RunStore,
  options: { replicaId: string; leaseMs: number; heartbeatMs: number; pollMs: number },
): MemoryCoordinator {
  const { replicaId, leaseMs } = options;
  const cancels = new Set<string>();
  let beats = 0;
  let renewals = 0;
  let unreachable = false;
  return {
    ...options,
    get unreachable() {
      return unreachable;
    },
    set unreachable(value: boolean) {
      unreachable = value;
    },
    get beats() {
      return beats;
    },
    get renewals() {
      return renewals;
    },
    async admit() {
      throw new Error('memoryCoordinator: submissions are not supported');
    },
    claim: (runId) => store.claimRun(runId, { holder: replicaId, leaseMs }),
    async renew(lease: RunLease) {
      if (unreachable) throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
      const renewed = await store.renewLease(lease, { leaseMs });
      if (renewed !== undefined) renewals += 1;
      return renewed;
    },
    fetch: async () => 0,
    lapsed: (limit) => store.lapsedLeases({ limit }),
    async requestCancel(runId) {
      cancels.add(runId);
    },
    async cancelsFor(runIds) {
      beats += 1;
      return runIds.filter((runId) => cancels.has(runId));
    },
    async clearCancel(runId) {
      cancels.delete(runId);
    },
    announce: async () => undefined,
    wakeWorkers: async () => undefined,
    subscribe: () => () => undefined,
  };
}
