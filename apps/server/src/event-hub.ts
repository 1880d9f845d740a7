/**
 * Wakes SSE streams when a run gets new events. Each run has a version that `notify` bumps; a
 * reader notes the version before reading the store and then waits for a newer one, so an event
 * written between the read and the wait is never missed.
 */
export interface EventHub {
  version(runId: string): number;
  notify(runId: string): void;
  /** Wakes every waiting stream (a wake-up whose run is unknown, or that may have been missed). */
  notifyAll(): void;
  /** Resolves `true` when the version moves past `since`, `false` on timeout or abort. */
  waitForChange(
    runId: string,
    since: number,
    options: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<boolean>;
}

export function createEventHub(): EventHub {
  const runs = new Map<string, { version: number; waiters: Set<() => void> }>();

  function entry(runId: string) {
    let found = runs.get(runId);
    if (found === undefined) {
      found = { version: 0, waiters: new Set() };
      runs.set(runId, found);
    }
    return found;
  }

  return {
    version(runId) {
      return entry(runId).version;
    },
    notify(runId) {
      const found = entry(runId);
      found.version += 1;
      for (const wake of [...found.waiters]) wake();
    },
    notifyAll() {
      for (const runId of [...runs.keys()]) this.notify(runId);
    },
    waitForChange(runId, since, { timeoutMs, signal }) {
      const found = entry(runId);
      if (found.version !== since || signal?.aborted)
        return Promise.resolve(found.version !== since);
      return new Promise((resolve) => {
        const finish = (changed: boolean) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          found.waiters.delete(wake);
          // Forget idle runs so the map does not grow with every run ever streamed.
          if (found.waiters.size === 0 && runs.get(runId) === found) runs.delete(runId);
          resolve(changed);
        };
        const wake = () => finish(true);
        const onAbort = () => finish(false);
        const timer = setTimeout(() => finish(false), timeoutMs);
        found.waiters.add(wake);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
  };
}
