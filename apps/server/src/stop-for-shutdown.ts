import { RlmError } from '@rlm/protocol';

/** The parts of a running run a shutdown needs: how it ends, how to stop it, what to record. */
export interface StoppableRun {
  controller: AbortController;
  /** Settles when the run's bookkeeping is done. */
  finished: Promise<void>;
  /** Called after each checkpoint the engine saves (a shutdown waits for the next one). */
  checkpointed?: () => void;
  /** Set when a shutdown stopped the run to be resumed at the next start (no end is recorded). */
  suspendedBy?: string;
  /** Set when a shutdown stopped the run for good (it ends `interrupted`). */
  interruptedBy?: string;
}

/**
 * Waits for the run to end, for the grace period to be over, or — when the next start can resume
 * the run (`resumable`) — for its current turn to end with a checkpoint; then stops it. A
 * resumable run is suspended (it continues from that checkpoint at the next start, so waiting for
 * the whole run is not needed); any other run is interrupted.
 */
export async function stopForShutdown(
  run: StoppableRun,
  {
    graceOver,
    graceMs,
    resumable,
  }: { graceOver: Promise<void>; graceMs: number; resumable: boolean },
): Promise<void> {
  const waits: Promise<'finished' | 'grace' | 'turn'>[] = [
    run.finished.then(() => 'finished' as const),
    graceOver.then(() => 'grace' as const),
  ];
  if (resumable) {
    waits.push(
      new Promise((resolve) => {
        run.checkpointed = () => resolve('turn');
      }),
    );
  }
  if ((await Promise.race(waits)) === 'finished') return;
  const message = resumable
    ? 'the server shut down; the run continues from its last checkpoint when the server starts again'
    : `the server shut down; the run did not finish within the ${graceMs} ms grace period`;
  if (resumable) run.suspendedBy = message;
  else run.interruptedBy = message;
  run.controller.abort(
    new RlmError({ code: 'server.unavailable', message, details: { reason: 'shutdown' } }),
  );
  await run.finished;
}
