import { setTimeout as sleep } from 'node:timers/promises';

const FIRST_DELAY_MS = 1;
const MAX_DELAY_MS = 25;

/** True for SQLite's "another connection holds the lock" errors. */
export function isBusyError(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    'code' in error &&
    (error.code === 'SQLITE_BUSY' || error.code === 'SQLITE_BUSY_SNAPSHOT')
  );
}

/**
 * Runs `work` and, while it fails with SQLITE_BUSY, tries again after a short, growing pause
 * until `timeoutMs` has passed (then rethrows the busy error).
 *
 * This replaces SQLite's own busy handler, which sleeps synchronously: with it, a connection
 * waiting for the write lock would block the event loop, so a second connection in the same
 * process could never finish the transaction that holds the lock (a deadlock until the
 * timeout), and a server would freeze for the whole wait.
 */
export async function retryWhileBusy<T>(work: () => T, timeoutMs: number): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  let delay = FIRST_DELAY_MS;
  for (;;) {
    try {
      return work();
    } catch (error) {
      if (!isBusyError(error) || performance.now() + delay > deadline) throw error;
    }
    await sleep(delay);
    delay = Math.min(delay * 2, MAX_DELAY_MS);
  }
}
