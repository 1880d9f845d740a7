import type { ServerLimits } from '../server-config.js';
import { rateLimited } from './rate-limited.js';

/** The limits the queue enforces, from the server's `limits`. */
export type RunQueueLimits = Pick<
  ServerLimits,
  'globalConcurrency' | 'concurrentRunsPerKey' | 'queueSize'
>;

export interface RunQueueOptions {
  limits: RunQueueLimits;
  /**
   * Starts the run that reached the head of the queue. `track` wraps the run's execution so the
   * queue frees its slot when it settles; returns false when the run no longer waits (cancelled).
   */
  start(runId: string, track: (execution: Promise<void>) => Promise<void>): boolean;
  /** A slot freed up (a run ended): a replica may take more runs. */
  onSlotFree(): void;
}

/**
 * The runs of this process waiting for a slot, first in first out, and the counts their limits
 * look at: runs executing (at most `globalConcurrency`), runs per key, submissions being stored.
 */
export interface RunQueue {
  /**
   * Whether one more run of `keyId` fits: at most `concurrentRunsPerKey` queued or running, and at
   * most `queueSize` waiting (counting submissions still being stored).
   * @throws RlmError `server.rate_limited`
   */
  checkLimits(keyId: string): void;
  /** Counts a run of `keyId` until `unreserve`. */
  reserve(keyId: string): void;
  unreserve(keyId: string): void;
  /** Counts a submission while its run is stored; call the returned function once it is. */
  storing(): () => void;
  /** Queues the run and starts what fits. */
  push(runId: string): void;
  /** Takes a waiting run out of the queue (a cancel). */
  remove(runId: string): void;
  /** Empties the queue (a shutdown) and returns what waited, in order. */
  drain(): string[];
  /** Runs this process can take on now: free slots less the runs already waiting. */
  freeSlots(): number;
  stats(): { queued: number; running: number };
}

export function createRunQueue({ limits, start, onSlotFree }: RunQueueOptions): RunQueue {
  const waiting: string[] = [];
  const perKey = new Map<string, number>();
  let running = 0;
  /** Submissions past the limit checks whose run is still being stored. */
  let stored = 0;

  const track = (execution: Promise<void>) =>
    execution.finally(() => {
      running -= 1;
      pump();
      onSlotFree();
    });

  function pump(): void {
    while (running < limits.globalConcurrency && waiting.length > 0) {
      const runId = waiting.shift() as string;
      // Counted before `start`, which may settle at once; undone when the run no longer waits.
      running += 1;
      if (!start(runId, track)) running -= 1;
    }
  }

  return {
    checkLimits(keyId) {
      if ((perKey.get(keyId) ?? 0) >= limits.concurrentRunsPerKey) {
        throw rateLimited(
          'concurrent_runs',
          `This key already has ${limits.concurrentRunsPerKey} runs queued or running`,
        );
      }
      if (waiting.length + stored >= limits.queueSize) {
        throw rateLimited('queue', 'The run queue is full');
      }
    },
    reserve(keyId) {
      perKey.set(keyId, (perKey.get(keyId) ?? 0) + 1);
    },
    unreserve(keyId) {
      const count = (perKey.get(keyId) ?? 1) - 1;
      if (count <= 0) perKey.delete(keyId);
      else perKey.set(keyId, count);
    },
    storing() {
      stored += 1;
      return () => {
        stored -= 1;
      };
    },
    push(runId) {
      waiting.push(runId);
      pump();
    },
    remove(runId) {
      const index = waiting.indexOf(runId);
      if (index >= 0) waiting.splice(index, 1);
    },
    drain: () => waiting.splice(0),
    freeSlots: () => limits.globalConcurrency - running - waiting.length,
    stats: () => ({ queued: waiting.length, running }),
  };
}
