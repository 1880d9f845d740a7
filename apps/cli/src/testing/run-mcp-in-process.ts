import { PassThrough } from 'node:stream';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { createExecutorEngine } from '../engine/executor-engine.js';
import { runCli } from '../run-cli.js';
import { CLI_VERSION, type InProcessCliOptions, inProcessIo } from './run-cli-in-process.js';

/** `rlm mcp` running inside the test's process, and the client's end of its standard input and output. */
export interface InProcessMcp {
  /** For the SDK's `Client.connect`: the same newline-delimited JSON-RPC the stdio client speaks. */
  transport: Transport;
  /** What the command wrote to standard error so far. */
  stderr(): string;
  /** The command's exit code, once the session ended (the client closed its end, or it failed). */
  exited: Promise<number>;
}

/**
 * Starts `rlm mcp …args` through `runCli` with a pipe pair for its stdio, as `runCliInProcess`
 * does for other commands: the session's behaviour without starting Node and loading the CLI for
 * every session (seconds on a loaded machine). Standard output shares the pipe with the protocol,
 * as in the real process, so a stray print still breaks the client. What is about the process
 * itself (the bin, its stdio file descriptors, signals) stays with tests that spawn it.
 */
export function startMcpInProcess(
  args: readonly string[],
  options: Omit<InProcessCliOptions, 'input'>,
): InProcessMcp {
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  const { io, stderr } = inProcessIo({ ...options, stdio: { input: toServer, output: toClient } });
  const exited = runCli(['mcp', ...args], io, {
    engine: createExecutorEngine(),
    version: CLI_VERSION,
  }).finally(() => toClient.end());
  return { transport: clientTransport(toClient, toServer), stderr: stderr.text, exited };
}

/** The client's end: reads the server's output, writes its input; closing ends the input, as a client that goes away does. */
function clientTransport(fromServer: PassThrough, toServer: PassThrough): Transport {
  const buffer = new ReadBuffer();
  let closed = false;
  const transport: Transport = {
    async start() {
      fromServer.on('data', (chunk: Buffer) => {
        buffer.append(chunk);
        try {
          for (
            let message = buffer.readMessage();
            message !== null;
            message = buffer.readMessage()
          ) {
            transport.onmessage?.(message);
          }
        } catch (error) {
          transport.onerror?.(error as Error);
        }
      });
      fromServer.once('end', () => void transport.close());
    },
    async send(message: JSONRPCMessage) {
      toServer.write(serializeMessage(message));
    },
    async close() {
      if (closed) return;
      closed = true;
      toServer.end();
      transport.onclose?.();
    },
  };
  return transport;
}
