import type { Readable, Writable } from 'node:stream';
import {
  BoundedStdioTransport,
  DEFAULT_STDIO_MAX_MESSAGE_BYTES,
} from './bounded-stdio-transport.js';
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
  /**
   * The largest message read or written; a larger one is refused with a JSON-RPC error and
   * the session goes on. @default DEFAULT_STDIO_MAX_MESSAGE_BYTES
   */
  maxMessageBytes?: number;
  /** Where the session's own notices go (a refused message, the end). @default stderr */
  log?: (line: string) => void;
  /**
   * Answer SIGTERM by ending the calls in flight with a "shutting down" error, then closing;
   * the signal's usual exit follows. @default true when serving the process's own stdin
   */
  handleSigterm?: boolean;
}

const stderrLine = (line: string) => {
  process.stderr.write(`${line}\n`);
};

/**
 * Serves one MCP session over stdio (newline-delimited JSON-RPC). The session ends, and its
 * sandbox is freed, when the input ends (the client went away) or on `close()`. A message over
 * `maxMessageBytes` is refused on its own; the session is never ended by one, and it never ends
 * without a line on `log`.
 *
 * @example
 * const rlm = await serveStdio({ runQuery: rlmQueryRunner({ runner, settings: { model: 'anthropic/claude-sonnet-5-5' } }) });
 * await rlm.closed;
 */
export async function serveStdio({
  input = process.stdin,
  output = process.stdout,
  maxMessageBytes = DEFAULT_STDIO_MAX_MESSAGE_BYTES,
  log = stderrLine,
  handleSigterm = input === process.stdin,
  ...options
}: ServeStdioOptions = {}): Promise<RlmMcpServer> {
  const rlm = createRlmMcpServer(options);
  const transport = new BoundedStdioTransport(input, output, { maxMessageBytes });
  let why = 'the server closed it';
  input.once('end', () => {
    why = 'the client closed its end (end of input)';
  });
  rlm.server.onerror = (error) => {
    log(`rlm mcp: ${error.message}`);
  };
  if (handleSigterm) {
    const onSigterm = () => {
      why = 'SIGTERM';
      log('rlm mcp: SIGTERM: ending the calls in flight, then the session');
      void rlm.shutdown('the server is shutting down (SIGTERM)').then(() => {
        process.off('SIGTERM', onSigterm);
        // Whatever else keeps the process alive, the signal still ends it, as it would have.
        setTimeout(() => process.kill(process.pid, 'SIGTERM'), 1_000).unref();
      });
    };
    process.on('SIGTERM', onSigterm);
    void rlm.closed.then(() => {
      if (why !== 'SIGTERM') process.off('SIGTERM', onSigterm);
    });
  }
  void rlm.closed.then(() => log(`rlm mcp: the session ended: ${why}.`));
  await rlm.server.connect(transport);
  return rlm;
}
