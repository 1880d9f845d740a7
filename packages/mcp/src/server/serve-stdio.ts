import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  createRlmMcpServer,
  type RlmMcpServer,
  type RlmMcpServerOptions,
} from './rlm-mcp-server.js';

/** Options of `serveStdio`: the server's, and the streams that carry the protocol. */
export interface ServeStdioOptions extends RlmMcpServerOptions {
  /** @default process.stdin */
  input?: Readable;
  /** Only protocol messages are written here. @default process.stdout */
  output?: Writable;
}

/**
 * Serves one MCP session over stdio (newline-delimited JSON-RPC). The session ends, and its
 * sandbox is freed, when the input ends (the client went away) or on `close()`.
 *
 * @example
 * const rlm = await serveStdio({ runQuery: rlmQueryRunner({ runner, settings: { model: 'anthropic/claude-sonnet-4-5' } }) });
 * await rlm.closed;
 */
export async function serveStdio({
  input = process.stdin,
  output = process.stdout,
  ...options
}: ServeStdioOptions = {}): Promise<RlmMcpServer> {
  const rlm = createRlmMcpServer(options);
  // The SDK's transport does not watch for the end of its input.
  const onEnd = () => void rlm.close();
  input.once('end', onEnd);
  void rlm.closed.then(() => input.off('end', onEnd));
  await rlm.server.connect(new StdioServerTransport(input, output));
  return rlm;
}
