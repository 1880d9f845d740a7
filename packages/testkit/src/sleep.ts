/**
 * Resolves after `ms` milliseconds; rejects with `signal.reason` if the signal aborts first.
 * Removes its timer and listener either way, so nothing outlives the wait.
 */
export function sleep(ms: number, { signal }: { signal?: AbortSignal } = {}): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
