import { RlmError } from '@rlm/protocol';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './app-env.js';

/**
 * Per-API-key request rate limit: a token bucket holding `requestsPerMinute` tokens, refilled
 * continuously. Hono ships no rate limiter, so this is ours; state lives in the closure (one
 * bucket map per server instance), never in a module global.
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
  const buckets = new Map<string, { tokens: number; at: number }>();
  const perMs = requestsPerMinute / 60_000;
  return async function keyRateLimitMiddleware(c, next) {
    const key = c.get('principal').keyId;
    const time = now();
    const bucket = buckets.get(key) ?? { tokens: requestsPerMinute, at: time };
    bucket.tokens = Math.min(requestsPerMinute, bucket.tokens + (time - bucket.at) * perMs);
    bucket.at = time;
    buckets.set(key, bucket);
    if (bucket.tokens < 1) {
      const retryAfterMs = Math.ceil((1 - bucket.tokens) / perMs);
      throw new RlmError({
        code: 'server.rate_limited',
        message: `Rate limit of ${requestsPerMinute} requests per minute exceeded for this key; retry in ${Math.ceil(retryAfterMs / 1000)} s`,
        details: { retryAfterMs, limit: 'requests' },
      });
    }
    bucket.tokens -= 1;
    await next();
  };
}
