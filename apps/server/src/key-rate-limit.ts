import { RlmError } from '@rlm/protocol';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './app-env.js';
import { createTokenBuckets } from './token-bucket.js';

/**
 * Per-API-key request rate limit: a token bucket holding `requestsPerMinute` tokens, refilled
 * continuously (see `createTokenBuckets`).
 *
 * @throws RlmError `server.rate_limited` with `retryAfterMs` (sent as `retry-after` seconds)
 */
export function keyRateLimit({
  requestsPerMinute,
  now = Date.now,
}: {
  requestsPerMinute: number;
  now?: () => number;
}): MiddlewareHandler<AppEnv> {
  const buckets = createTokenBuckets({ perMinute: requestsPerMinute, now });
  return async function keyRateLimitMiddleware(c, next) {
    const key = c.get('principal').keyId;
    if (!buckets.take(key)) {
      const retryAfterMs = buckets.retryAfterMs(key);
      throw new RlmError({
        code: 'server.rate_limited',
        message: `Rate limit of ${requestsPerMinute} requests per minute exceeded for this key; retry in ${Math.ceil(retryAfterMs / 1000)} s`,
        details: { retryAfterMs, limit: 'requests' },
      });
    }
    await next();
  };
}
