import type { EvalTask } from '../task/eval-task.js';
import type { EvalSystem } from './eval-system.js';

/** One attempt to run: a task, a system and the attempt number. */
export interface Job {
  task: EvalTask;
  system: EvalSystem;
  attempt: number;
}

/** Why an eval stopped before running every attempt. */
export type EvalStop = 'budget' | 'cancelled';

/**
 * Runs jobs with at most `concurrency` at once; before starting each, asks `stopReason` whether
 * to stop starting new ones (running ones always finish). Returns the first stop reason seen.
 */
export async function runPool(
  jobs: readonly Job[],
  {
    concurrency,
    stopReason,
    run,
  }: {
    concurrency: number;
    stopReason: () => EvalStop | null;
    run: (job: Job, running: () => number) => Promise<void>;
  },
): Promise<EvalStop | null> {
  let next = 0;
  let running = 0;
  let stopped: EvalStop | null = null;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (next < jobs.length && stopped === null && failure === undefined) {
      stopped = stopReason();
      if (stopped !== null) return;
      const job = jobs[next] as Job;
      next += 1;
      running += 1;
      try {
        await run(job, () => running - 1);
      } catch (error) {
        // Fatal (configuration) errors stop every worker; the first one is rethrown below.
        failure ??= { error };
      } finally {
        running -= 1;
      }
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(concurrency, Math.max(1, jobs.length)) }, worker),
  );
  if (failure !== undefined) throw failure.error;
  return stopped ?? stopReason();
}
