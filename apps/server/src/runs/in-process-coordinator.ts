import { restartMessage, unfinishedRuns } from '../unfinished-runs.js';
import type { Coordinator } from './coordinator.js';
import type { RunLifecycle } from './run-lifecycle.js';
import { takeUpRun } from './take-up-run.js';

/**
 * One server on its own: this process's queue enforces every limit, runs execute where they were
 * submitted, and at start-up the runs the last process left unfinished are taken up.
 */
export function createInProcessCoordinator(life: RunLifecycle): Coordinator {
  return {
    checkLimits: (keyId) => life.queue.checkLimits(keyId),
    createRun: (run) => life.store.createRun(run, {}),
    queues: () => false,
    queued: () => undefined,
    claimNew: async () => undefined,
    announce: () => undefined,
    released: () => undefined,
    gaveUp: async () => undefined,
    slotFree: () => undefined,
    async recover() {
      const requeued: string[] = [];
      const interrupted: string[] = [];
      for (const record of await unfinishedRuns(life.store)) {
        const result = await takeUpRun(life, record, {
          message: (turn, calls) =>
            restartMessage(record.status, { checkpointTurn: turn, recordedCalls: calls }),
        });
        if (result === 'resumed') requeued.push(record.id);
        else if (result === 'interrupted') interrupted.push(record.id);
      }
      return { requeued, interrupted };
    },
    cancelElsewhere: async () => false,
    stopTaking: () => undefined,
    close: async () => undefined,
  };
}
