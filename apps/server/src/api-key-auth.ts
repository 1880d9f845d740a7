import { RlmError } from '@rlm/protocol';
import type { Context, MiddlewareHandler } from 'hono';
import { bearerAuth } from 'hono/bearer-auth';
import { type ApiKeyStore, hashApiKey } from './api-key-store.js';
import type { AppEnv } from './app-env.js';
import { errorBody } from './error-body.js';

/**
 * Bearer API-key authentication on Hono's `bearerAuth`: the token is hashed (SHA-256) and looked up;
 * revoked keys are refused with their own reason. Sets `principal` for handlers.
 */
export function apiKeyAuth(store: ApiKeyStore): MiddlewareHandler<AppEnv> {
  const body = (reason: 'missing' | 'invalid' | 'revoked') => (c: Context<AppEnv>) =>
    errorBody(
      new RlmError({
        code: 'server.unauthorized',
        message:
          reason === 'missing'
            ? 'Missing API key: send "Authorization: Bearer <key>"'
            : reason === 'revoked'
              ? 'This API key has been revoked'
              : 'Invalid API key',
        details: { reason },
      }),
      c.get('requestId'),
    ).body;
  return bearerAuth<AppEnv>({
    verifyToken: async (token, c) => {
      const record = await store.findByHash(hashApiKey(token));
      if (record === undefined) {
        c.set('authFailure', 'invalid');
        return false;
      }
      if (record.revokedAt !== null) {
        c.set('authFailure', 'revoked');
        return false;
      }
      c.set('principal', { keyId: record.id, name: record.name, role: record.role });
      return true;
    },
    noAuthenticationHeader: { message: body('missing') },
    invalidAuthenticationHeader: { message: body('invalid') },
    invalidToken: { message: (c) => body(c.get('authFailure') ?? 'invalid')(c) },
  });
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
