import { getConnInfo } from '@hono/node-server/conninfo';
import { RlmError } from '@rlm/protocol';
import type { Context, MiddlewareHandler } from 'hono';
import { type ApiKeyStore, hashApiKey } from './api-key-store.js';
import type { AppEnv } from './app-env.js';
import { errorBody } from './error-body.js';
import { createTokenBuckets } from './token-bucket.js';

type Failure = 'missing' | 'invalid' | 'revoked' | 'scheme';

const MESSAGES: Record<Failure, string> = {
  missing: 'Missing API key: send "Authorization: Bearer <key>"',
  scheme: 'Unsupported authorization scheme: send "Authorization: Bearer <key>"',
  invalid: 'Invalid API key',
  revoked: 'This API key has been revoked',
};

// RFC 6750: no error code when credentials are missing; invalid_request for another scheme or a
// malformed header; invalid_token for a key that is unknown or revoked.
const CHALLENGES: Record<Failure, string> = {
  missing: 'Bearer realm="rlm"',
  scheme: 'Bearer realm="rlm", error="invalid_request"',
  invalid: 'Bearer realm="rlm", error="invalid_token"',
  revoked: 'Bearer realm="rlm", error="invalid_token"',
};

const BEARER = /^Bearer[ ]+([A-Za-z0-9._~+/-]+=*)[ ]*$/i;

export interface ApiKeyAuthOptions {
  keys: ApiKeyStore;
  /** Failed authentications allowed per client address per minute (a token bucket). */
  failuresPerMinute: number;
  now?: () => number;
}

/**
 * Bearer API-key authentication: the token is hashed (SHA-256) and looked up; revoked keys are
 * refused with their own reason. Every failure is a 401 with a `WWW-Authenticate` challenge,
 * whatever the scheme sent. Failures are counted per client address, and an address past
 * `failuresPerMinute` gets 429 without its key being checked, so keys cannot be guessed at speed.
 * Sets `principal` for handlers.
 */
export function apiKeyAuth({
  keys,
  failuresPerMinute,
  now,
}: ApiKeyAuthOptions): MiddlewareHandler<AppEnv> {
  const failures = createTokenBuckets({ perMinute: failuresPerMinute, ...(now ? { now } : {}) });
  return async function apiKeyAuthMiddleware(c, next) {
    const address = clientAddress(c);
    if (failures.available(address) < 1) {
      const retryAfterMs = failures.retryAfterMs(address);
      throw new RlmError({
        code: 'server.rate_limited',
        message: `Too many failed authentications from this address; retry in ${Math.ceil(retryAfterMs / 1000)} s`,
        details: { retryAfterMs, limit: 'requests' },
      });
    }
    const failure = await authenticate(c, keys);
    if (failure === undefined) return next();
    failures.take(address);
    const { body } = errorBody(
      new RlmError({
        code: 'server.unauthorized',
        message: MESSAGES[failure],
        details: { reason: failure === 'scheme' ? 'invalid' : failure },
      }),
      c.get('requestId'),
    );
    return c.json(body, 401, { 'www-authenticate': CHALLENGES[failure] });
  };
}

async function authenticate(c: Context<AppEnv>, keys: ApiKeyStore): Promise<Failure | undefined> {
  const header = c.req.header('authorization');
  if (header === undefined || header.trim() === '') return 'missing';
  const token = BEARER.exec(header)?.[1];
  if (token === undefined) return 'scheme';
  const record = await keys.findByHash(hashApiKey(token));
  if (record === undefined) return 'invalid';
  if (record.revokedAt !== null) return 'revoked';
  c.set('principal', { keyId: record.id, name: record.name, role: record.role });
  return undefined;
}

/** The peer address of the connection; `unknown` when the app runs without a socket (tests). */
function clientAddress(c: Context<AppEnv>): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** Refuses non-admin principals with 403. */
export const requireAdmin: MiddlewareHandler<AppEnv> = async function requireAdmin(c, next) {
  if (c.get('principal').role !== 'admin') {
    throw new RlmError({
      code: 'server.forbidden',
      message: 'This endpoint needs an admin API key',
      details: { reason: 'admin role required' },
    });
  }
  await next();
};
