import { RlmError } from '@rlm/protocol';

/** What one streamed attempt got to before it failed. */
export interface AttemptState {
  /** Response headers arrived (the SDK will not retry anything from here on). */
  afterHeaders: boolean;
  /** At least one non-empty text delta arrived. */
  textDelivered: boolean;
}

/**
 * Runs a streamed call, and runs it once more when it failed after the headers with a retryable
 * error and before any text. SDKs retry only failures before headers; a retry after text could
 * duplicate output a caller has already seen, so that is never done.
 */
export async function withStreamRetry<T>(
  attempt: (state: AttemptState) => Promise<T>,
  { maxRetries, signal }: { maxRetries: number; signal: AbortSignal | undefined },
): Promise<T> {
  const first: AttemptState = { afterHeaders: false, textDelivered: false };
  try {
    return await attempt(first);
  } catch (error) {
    const retry =
      maxRetries > 0 &&
      first.afterHeaders &&
      !first.textDelivered &&
      RlmError.is(error) &&
      error.retryable &&
      signal?.aborted !== true;
    if (!retry) throw error;
  }
  return attempt({ afterHeaders: false, textDelivered: false });
}
