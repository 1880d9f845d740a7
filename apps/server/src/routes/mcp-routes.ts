import { readBoundedBody } from '@rlm/mcp';
import { RlmError } from '@rlm/protocol';
import { Hono } from 'hono';
import type { AppEnv } from '../app-env.js';
import type { McpSessions } from '../mcp-sessions.js';
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
 * DELETE to end the session), behind the same Bearer keys and rate limits as `/v1`. A POST body
 * may be as large as a context (`limits.contextBytes`); past it, the request is refused with our
 * error (413), and an answer to a request the session sent (a sampled `llm_query`) fails that
 * request at once rather than leaving the block waiting for it.
 */
export function mcpRoutes(services: ServerServices, sessions: McpSessions): Hono<AppEnv> {
  const { config } = services;
  const limit = config.limits.contextBytes;
  const app = new Hono<AppEnv>();
  app.all('/', async (c) => {
    const request = c.req.raw;
    checkOrigin(request, config.corsOrigins);
    const principal = c.get('principal');
    if (request.method !== 'POST') return sessions.handle(request, principal);
    const body = await readBoundedBody(request, limit);
    if (body.ok) {
      const forwarded = new Request(request.url, {
        method: 'POST',
        headers: request.headers,
        body: body.text,
      });
      return sessions.handle(forwarded, principal);
    }
    const what = body.isResponse ? "The client's answer" : 'The request body';
    const id = body.id === undefined ? '' : ` (JSON-RPC id ${JSON.stringify(body.id)})`;
    const message = `${what}${id} was ${body.bytes} bytes, over the /mcp limit of ${limit} bytes (limits.contextBytes); it was dropped.`;
    if (body.isResponse && body.id !== undefined) {
      sessions.failRequest(request, principal, { requestId: body.id, message });
    }
    throw new RlmError({
      code: 'server.payload_too_large',
      message,
      details: { what: '/mcp request body', limitBytes: limit },
    });
  });
  return app;
}
