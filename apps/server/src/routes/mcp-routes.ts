import { readBoundedBody } from '@rlm/mcp';
import { RlmError } from '@rlm/protocol';
import { Hono } from 'hono';
import type { AppEnv } from '../app-env.js';
import type { McpSessions } from '../mcp-sessions.js';
import type { ServerServices } from '../server-services.js';

/** Names of every address: a server bound to one of these is reached by some other name. */
const WILDCARD_BINDS = new Set(['0.0.0.0', '::', '[::]', '']);

/** The hosts `/mcp` answers to: `mcp.allowedHosts`, and the name the server is bound to. */
export function mcpAllowedHosts(config: ServerServices['config']): ReadonlySet<string> {
  const bound =
    config.host.includes(':') && !config.host.startsWith('[') ? `[${config.host}]` : config.host;
  const hosts = new Set(config.mcp.allowedHosts.map((host) => host.toLowerCase()));
  if (!WILDCARD_BINDS.has(config.host)) hosts.add(bound.toLowerCase());
  return hosts;
}

function hostnameOf(host: string): string | undefined {
  try {
    return new URL(`http://${host}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * DNS rebinding and cross-site requests: a page on another site whose name was pointed at this
 * server sends its own name as `Host`, so `Host` must be one of the allowed names (loopback by
 * default); and a request from a browser page (`Origin`) must come from this server's own origin
 * under an allowed name, or a configured CORS origin.
 */
function checkHostAndOrigin(
  request: Request,
  { hosts, corsOrigins }: { hosts: ReadonlySet<string>; corsOrigins: readonly string[] },
): void {
  const host = request.headers.get('host') ?? new URL(request.url).host;
  const hostname = hostnameOf(host);
  if (!hosts.has('*') && (hostname === undefined || !hosts.has(hostname))) {
    throw new RlmError({
      code: 'server.forbidden',
      message: `Host ${host} may not use /mcp (allowed: ${[...hosts].join(', ')}); add its name to mcp.allowedHosts to allow it.`,
      details: { reason: 'host not allowed' },
    });
  }
  const origin = request.headers.get('origin');
  if (origin === null || corsOrigins.includes(origin)) return;
  let own = false;
  try {
    const parsed = new URL(origin);
    own = parsed.host.toLowerCase() === host.toLowerCase();
  } catch {
    own = false;
  }
  if (own) return;
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
  const hosts = mcpAllowedHosts(config);
  const app = new Hono<AppEnv>();
  app.all('/', async (c) => {
    const request = c.req.raw;
    checkHostAndOrigin(request, { hosts, corsOrigins: config.corsOrigins });
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
