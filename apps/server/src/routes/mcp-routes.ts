import { RlmError } from '@rlm/protocol';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { AppEnv } from '../app-env.js';
import type { McpSessions } from '../mcp-sessions.js';
import { payloadTooLarge } from '../payload-too-large.js';
import type { ServerServices } from '../server-services.js';

/**
 * A browser page may not drive `/mcp` (DNS rebinding, cross-site requests): a request that
 * carries an `Origin` must come from the server itself or a configured CORS origin.
 */
function checkOrigin(request: Request, allowed: readonly string[]): void {
  const origin = request.headers.get('origin');
  if (origin === null) return;
  if (origin === new URL(request.url).origin || allowed.includes(origin)) return;
  throw new RlmError({
    code: 'server.forbidden',
    message: `Origin ${origin} may not use /mcp; add it to corsOrigins to allow it.`,
    details: { reason: 'origin not allowed' },
  });
}

/**
 * `/mcp`: the RLM as MCP tools over Streamable HTTP (POST messages, GET the server's stream,
 * DELETE to end the session), behind the same Bearer keys and rate limits as `/v1`.
 */
export function mcpRoutes(services: ServerServices, sessions: McpSessions): Hono<AppEnv> {
  const { config } = services;
  const app = new Hono<AppEnv>();
  app.all(
    '/',
    bodyLimit({
      maxSize: config.limits.contextBytes,
      onError: payloadTooLarge('request body', config.limits.contextBytes),
    }),
    async (c) => {
      checkOrigin(c.req.raw, config.corsOrigins);
      return sessions.handle(c.req.raw, c.get('principal'));
    },
  );
  return app;
}
