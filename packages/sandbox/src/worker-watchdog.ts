import { readWatchdogCell } from './engine/watchdog-cell.js';
import type { ResetReason } from './sandbox-reset.js';

/** How often a busy worker's published deadline is checked. */
export const WATCHDOG_POLL_MS = 100;
/**
 * How far past its deadline guest code may run before its worker is terminated. The engine's
 * interrupt handler stops ordinary code within milliseconds of the deadline; only a native builtin
 * that never returns to it gets here (or a thread a very busy machine did not schedule for this
 * long, which is why the grace is not shorter).
 */
export const OVERRUN_GRACE_MS = 2_000;
/**
 * How long an aborted request may take to answer before its worker is terminated: short, so
 * `execute()` settles within about a second of an abort, whatever guest code is doing.
 */
export const ABORT_GRACE_MS = 750;

export interface WatchOptions {
  /** The worker's watchdog cell (see watchdog-cell.ts). */
  cell: SharedArrayBuffer;
  /** The request's abort signal, if it has one. */
  signal: AbortSignal | undefined;
  /** Called at most once, when the worker must be terminated. */
  onKill: (reason: ResetReason) => void;
}

/**
 * Watches one request to a worker from outside its engine: terminates (through `onKill`) a worker
 * whose guest code runs `OVERRUN_GRACE_MS` past the deadline it published, or that has not
 * answered `ABORT_GRACE_MS` after its request was aborted. Returns the function that stops
 * watching (call it when the request is answered). Its timers never keep the process alive.
 */
export function watchRequest({ cell, signal, onKill }: WatchOptions): () => void {
  let stopped = false;
  let abortTimer: NodeJS.Timeout | undefined;
  const kill = (reason: ResetReason): void => {
    if (stopped) return;
    stop();
    onKill(reason);
  };
  const poll = setInterval(() => {
    const running = readWatchdogCell(cell);
    if (running !== undefined && Date.now() > running.deadline + OVERRUN_GRACE_MS) {
      kill(running.kind);
    }
  }, WATCHDOG_POLL_MS);
  poll.unref();
  const onAbort = (): void => {
    abortTimer = setTimeout(() => kill('aborted'), ABORT_GRACE_MS);
    abortTimer.unref();
  };
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  function stop(): void {
    stopped = true;
    clearInterval(poll);
    clearTimeout(abortTimer);
    signal?.removeEventListener('abort', onAbort);
  }
  return stop;
}
