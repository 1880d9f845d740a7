import { randomUUID } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { ErrorCode, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import {
  createRlmMcpServer,
  type RlmMcpServer,
  type RlmMcpServerOptions,
} from './rlm-mcp-server.js';

/** Options of `createHttpSession`: the server's, and the transport's body limit. */
export interface HttpSessionOptions extends RlmMcpServerOptions {
  /**
   * The largest request body the transport reads itself, in bytes. A caller that reads bodies
   * within its own limit (and passes them on) sets this to the same, so one limit holds.
   * @default the SDK's, 4 MiB
   */
  maxRequestBodySize?: number;
}

/** One MCP session over Streamable HTTP (Web `Request` in, `Response` out: Hono, Workers, …). */
export interface HttpSession {
  readonly rlm: RlmMcpServer;
  /** The session id once `initialize` succeeded; `undefined` before (or when it failed). */
  readonly sessionId: string | undefined;
  /** Answers one request of this session (POST messages, GET its stream, DELETE to end it). */
  handleRequest(request: Request): Promise<Response>;
  /**
   * Fails the request this server sent with `id` (a sampled `llm_query`) as if the client had
   * answered with an error: for an answer the caller could not accept (too large), so that the
   * call waiting on it ends now instead of at its timeout.
   */
  failRequest(id: RequestId, message: string, data?: Record<string, unknown>): void;
}

/**
 * A new session's server and transport: hand it the `initialize` request; when that succeeds,
 * `sessionId` is set and later requests carrying it (`mcp-session-id`) go to `handleRequest`.
 * Ends (the sandbox freed) on DELETE or `rlm.close()`; `rlm.closed` tells the caller.
 */
export async function createHttpSession({
  maxRequestBodySize,
  ...options
}: HttpSessionOptions = {}): Promise<HttpSession> {
  const rlm = createRlmMcpServer(options);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    ...(maxRequestBodySize === undefined ? {} : { maxRequestBodySize }),
  });
  await rlm.server.connect(transport);
  return {
    rlm,
    get sessionId() {
      return transport.sessionId;
    },
    handleRequest: (request) => transport.handleRequest(request),
    failRequest(id, message, data) {
      transport.onmessage?.({
        jsonrpc: '2.0',
        id,
        error: { code: ErrorCode.InvalidRequest, message, ...(data === undefined ? {} : { data }) },
      });
    },
  };
}
