import { RlmError } from '@rlm/protocol';

/** Longest server-given `retry-after` honoured; a longer one falls back to the backoff. */
const MAX_RETRY_AFTER_MS = 60_000;

/** What one attempt got to before it failed. */
export interface RetryAttemptState {
  /** Text reached the caller: trying again could repeat output, so it is never done. */
  textDelivered: boolean;
}

/**
 * Runs `attempt`, and again (up to `maxRetries` more times) while it fails with a retryable
 * `RlmError` before any text: for clients whose provider package does not retry by itself. Waits
 * the provider's `retry-after` when it gave one (up to a minute), else 0.5 s, 1 s, 2 s … (at most
 * 8 s, less up to a quarter at random so parallel callers spread out). The wait ends at once when
 * `signal` aborts.
 */
export async function retryTransient<T>(
  attempt: (state: RetryAttemptState) => Promise<T>,
  { maxRetries, signal }: { maxRetries: number; signal: AbortSignal | undefined },
): Promise<T> {
  for (let retry = 0; ; retry += 1) {
    const state: RetryAttemptState = { textDelivered: false };
    try {
      return await attempt(state);
    } catch (error) {
      const again =
        retry < maxRetries &&
        !state.textDelivered &&
        RlmError.is(error) &&
        error.retryable &&
        signal?.aborted !== true;
      if (!again) throw error;
      // An abort ends the wait; the next attempt then fails at once as aborted.
      await wait(delayBefore(retry, error), signal);
    }
  }
}

function delayBefore(retry: number, error: RlmError): number {
  const hinted = RlmError.is(error, 'model.rate_limited') ? error.details.retryAfterMs : undefined;
  if (hinted !== undefined && hinted <= MAX_RETRY_AFTER_MS) return hinted;
  return Math.min(500 * 2 ** retry, 8_000) * (1 - Math.random() * 0.25);
}

function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) {
      resolve();
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
