import { RlmError } from '@rlm/protocol';

/** A limit reached: the caller may try again shortly. */
export function rateLimited(
  limit: 'concurrent_runs' | 'queue',
  message: string,
): RlmError<'server.rate_limited'> {
  return new RlmError({
    code: 'server.rate_limited',
    message,
    details: { retryAfterMs: 1000, limit },
  });
}
