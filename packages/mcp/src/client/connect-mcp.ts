import { createRequire } from 'node:module';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { RlmError } from '@rlm/protocol';
import type { ResolvedMcpServerSpec } from './mcp-server-spec.js';

/** Characters of a stdio server's last stderr output kept for error messages. */
export const STDERR_TAIL_CHARS = 2_000;

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

/** An open connection: the SDK client and what a stdio server last wrote to stderr. */
export interface McpConnection {
  client: Client;
  stderrTail(): string;
}

function transportFor(spec: ResolvedMcpServerSpec, onStderr: (text: string) => void) {
  if ('url' in spec) {
    return new StreamableHTTPClientTransport(new URL(spec.url), {
      requestInit: { headers: { ...spec.headers } },
    });
  }
  const transport = new StdioClientTransport({
    command: spec.command,
    args: spec.args,
    ...(spec.env === undefined ? {} : { env: spec.env }),
    ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }),
    // Piped, not inherited: a server's logs must not mix into the CLI's progress display.
    stderr: 'pipe',
  });
  // Read continuously so a chatty server never blocks on a full pipe.
  transport.stderr?.on('data', (chunk: Buffer) => onStderr(chunk.toString('utf8')));
  return transport;
}

/**
 * Starts (stdio) or reaches (HTTP) an MCP server and completes the MCP handshake.
 *
 * @throws RlmError `mcp.connection_failed` with the reason and the server's last stderr lines;
 *   the abort reason when `signal` fires first
 */
export async function connectMcp(
  spec: ResolvedMcpServerSpec,
  {
    label,
    timeoutMs,
    signal,
  }: { label: string; timeoutMs: number; signal?: AbortSignal | undefined },
): Promise<McpConnection> {
  let tail = '';
  const transport = transportFor(spec, (text) => {
    tail = (tail + text).slice(-STDERR_TAIL_CHARS);
  });
  const client = new Client({ name: 'rlm', version });
  try {
    await client.connect(transport, {
      timeout: timeoutMs,
      ...(signal === undefined ? {} : { signal }),
    });
  } catch (error) {
    await client.close().catch(() => undefined);
    if (signal?.aborted === true) throw signal.reason;
    const reason = error instanceof Error ? error.message : String(error);
    const logs = tail.trim() === '' ? '' : `\nIts last output on stderr:\n${tail.trim()}`;
    throw new RlmError({
      code: 'mcp.connection_failed',
      message: `Could not connect to MCP server ${label}: ${reason}${logs}`,
      details: { server: label, reason },
      cause: error,
    });
  }
  return { client, stderrTail: () => tail };
}
