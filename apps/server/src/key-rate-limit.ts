import { RlmError } from '@rlm/protocol';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './app-env.js';
import type { RateLimiter } from './rate-limiter.js';

/**
 * Per-API-key request rate limit: a token bucket of `requestsPerMinute` tokens, refilled
 * continuously, in this process or shared by every replica (see `RateLimiter`).
 *
 * @throws RlmError `server.rate_limited` with `retryAfterMs` (sent as `retry-after` seconds)
 */
export function keyRateLimit({ limiter }: { limiter: RateLimiter }): MiddlewareHandler<AppEnv> {
  return async function keyRateLimitMiddleware(c, next) {
    const decision = await limiter.take(c.get('principal').keyId);
    if (!decision.ok) {
      const { retryAfterMs } = decision;
      throw new RlmError({
        code: 'server.rate_limited',
        message: `Rate limit of ${limiter.perMinute} requests per minute exceeded for this key; retry in ${Math.ceil(retryAfterMs / 1000)} s`,
        details: { retryAfterMs, limit: 'requests' },
      });
    }
    await next();
  };
}
