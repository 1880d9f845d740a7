import { createTokenBuckets } from './token-bucket.js';

/** What a limiter answers: go on, or wait this long. */
export type RateDecision = { ok: true } | { ok: false; retryAfterMs: number };

/** Takes one token from `key`'s bucket of `perMinute` tokens, refilled continuously. */
export interface RateLimiter {
  readonly perMinute: number;
  take(key: string): Promise<RateDecision>;
}

/** Token buckets in this process (one server, or limits kept per replica). */
export function createLocalRateLimiter({
  perMinute,
  now = Date.now,
}: {
  perMinute: number;
  now?: () => number;
}): RateLimiter {
  const buckets = createTokenBuckets({ perMinute, now });
  return {
    perMinute,
    async take(key) {
      if (buckets.take(key)) return { ok: true };
      return { ok: false, retryAfterMs: buckets.retryAfterMs(key) };
    },
  };
}
