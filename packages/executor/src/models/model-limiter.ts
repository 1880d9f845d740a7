import pLimit, { type LimitFunction } from 'p-limit';
import { abortedError } from './model-error.js';

/** The concurrency used for a provider the limiter has no explicit limit for. */
export const DEFAULT_PROVIDER_CONCURRENCY = 8;

/**
 * Caps how many model calls run at once, per provider key. Create one per run tree and pass it
 * to every client (or to `resolveModel`), so a root, its children and their sub-calls share one
 * budget of connections instead of each opening their own.
 */
export interface ModelLimiter {
  /**
   * Runs `task` when a slot for `key` is free. If `signal` aborts while the task waits, the call
   * rejects at once with `model.aborted` and the task never starts.
   */
  run<T>(key: string, task: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  /** Calls running now for `key`. */
  activeCount(key: string): number;
  /** Calls waiting for a slot for `key`. */
  pendingCount(key: string): number;
}

export interface ModelLimiterOptions {
  /** Concurrency per provider key, e.g. `{ anthropic: 4, 'openai-compatible': 2 }`. */
  limits?: Readonly<Record<string, number>>;
  /** Concurrency for keys missing from `limits`. @default DEFAULT_PROVIDER_CONCURRENCY */
  defaultConcurrency?: number;
}

/**
 * Creates a per-provider concurrency limiter (backed by p-limit, one queue per key).
 *
 * @example
 * const limiter = createModelLimiter({ limits: { anthropic: 4 } });
 * const root = anthropic({ model: 'claude-sonnet-5-5', apiKey, limiter });
 */
export function createModelLimiter({
  limits = {},
  defaultConcurrency = DEFAULT_PROVIDER_CONCURRENCY,
}: ModelLimiterOptions = {}): ModelLimiter {
  const queues = new Map<string, LimitFunction>();
  const queueFor = (key: string): LimitFunction => {
    let queue = queues.get(key);
    if (queue === undefined) {
      queue = pLimit(limits[key] ?? defaultConcurrency);
      queues.set(key, queue);
    }
    return queue;
  };
  return {
    activeCount: (key) => queues.get(key)?.activeCount ?? 0,
    pendingCount: (key) => queues.get(key)?.pendingCount ?? 0,
    run<T>(key: string, task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
      if (signal?.aborted) return Promise.reject(abortedError(key, signal));
      const queued = queueFor(key)(() => (signal?.aborted ? skipped<T>() : task()));
      if (signal === undefined) return queued;
      return new Promise<T>((resolve, reject) => {
        const onAbort = () => reject(abortedError(key, signal));
        signal.addEventListener('abort', onAbort, { once: true });
        queued.then(
          (value) => {
            signal.removeEventListener('abort', onAbort);
            resolve(value);
          },
          (error: unknown) => {
            signal.removeEventListener('abort', onAbort);
            reject(error);
          },
        );
      });
    },
  };
}

// A task whose caller has already given up: it frees its slot at once. The caller's promise was
// already rejected by the abort listener, so this value is never observed.
function skipped<T>(): Promise<T> {
  return Promise.resolve(undefined as T);
}
