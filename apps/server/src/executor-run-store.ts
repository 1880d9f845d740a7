import type { RunStore } from '@rlm/memory';

/** What the server learns from the executor's writes to its run store. */
export interface ExecutorRunStoreOptions {
  /** Called once a checkpoint is durably saved: the turn before it is complete and resumable. */
  onCheckpoint: (turn: number) => void;
}

/**
 * The server's run store as the executor sees it for one run. Checkpoints go through (so a
 * restarted server can `rlm.resume` the run) and are reported to the run manager, which is how a
 * shutdown stops a run at a turn boundary. Run status and usage writes are not applied: the server
 * writes them itself once the run's events are persisted, and a run stopped by a shutdown must stay
 * resumable rather than be recorded `cancelled` by the executor.
 */
export function executorRunStore(
  store: RunStore,
  { onCheckpoint }: ExecutorRunStoreOptions,
): RunStore {
  return {
    createRun: (input, options) => store.createRun(input, options),
    getRun: (runId) => store.getRun(runId),
    async updateRun(runId) {
      // An unknown id still gets the store's own `memory.not_found` (an empty patch changes
      // nothing else).
      return (await store.getRun(runId)) ?? store.updateRun(runId, {});
    },
    listRuns: (options) => store.listRuns(options),
    appendEvent: (runId, event) => store.appendEvent(runId, event),
    eventsAfter: (runId, afterSeq, options) => store.eventsAfter(runId, afterSeq, options),
    async saveCheckpoint(runId, turn, data) {
      const saved = await store.saveCheckpoint(runId, turn, data);
      onCheckpoint(saved.turn);
      return saved;
    },
    latestCheckpoint: (runId) => store.latestCheckpoint(runId),
    appendTrajectory: (runId, record) => store.appendTrajectory(runId, record),
    trajectory: (runId) => store.trajectory(runId),
    trajectoryJsonl: (runId) => store.trajectoryJsonl(runId),
    deleteRunsBefore: (cutoffMs) => store.deleteRunsBefore(cutoffMs),
    deleteRun: (runId) => store.deleteRun(runId),
    claimRun: (runId, options) => store.claimRun(runId, options),
    renewLease: (lease, options) => store.renewLease(lease, options),
    releaseLease: (lease) => store.releaseLease(lease),
    leaseOf: (runId) => store.leaseOf(runId),
    lapsedLeases: (options) => store.lapsedLeases(options),
    fenced: (lease) => executorRunStore(store.fenced(lease), { onCheckpoint }),
  };
}
