import { randomUUID } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  createRlmMcpServer,
  type RlmMcpServer,
  type RlmMcpServerOptions,
} from './rlm-mcp-server.js';

/** One MCP session over Streamable HTTP (Web `Request` in, `Response` out: Hono, Workers, …). */
export interface HttpSession {
  readonly rlm: RlmMcpServer;
  /** The session id once `initialize` succeeded; `undefined` before (or when it failed). */
  readonly sessionId: string | undefined;
  /** Answers one request of this session (POST messages, GET its stream, DELETE to end it). */
  handleRequest(request: Request): Promise<Response>;
}

/**
 * A new session's server and transport: hand it the `initialize` request; when that succeeds,
 * `sessionId` is set and later requests carrying it (`mcp-session-id`) go to `handleRequest`.
 * Ends (the sandbox freed) on DELETE or `rlm.close()`; `rlm.closed` tells the caller.
 */
export async function createHttpSession(options: RlmMcpServerOptions = {}): Promise<HttpSession> {
  const rlm = createRlmMcpServer(options);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
  });
  await rlm.server.connect(transport);
  return {
    rlm,
    get sessionId() {
      return transport.sessionId;
    },
    handleRequest: (request) => transport.handleRequest(request),
  };
}
