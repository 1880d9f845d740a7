import { PassThrough, type Readable, type Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type CallToolResult,
  type JSONRPCMessage,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { samplingClient } from '../testing/index.js';
import { DEFAULT_STDIO_MAX_MESSAGE_BYTES } from './bounded-stdio-transport.js';
import { serveStdio } from './serve-stdio.js';

/** The client's end of a stdio pipe pair: newline-delimited JSON-RPC, as the SDK's client writes it. */
function streamTransport(input: Readable, output: Writable): Transport {
  let buffered = '';
  const transport: Transport = {
    async start() {
      input.setEncoding('utf8');
      input.on('data', (chunk: string) => {
        buffered += chunk;
        let newline = buffered.indexOf('\n');
        while (newline !== -1) {
          const line = buffered.slice(0, newline);
          buffered = buffered.slice(newline + 1);
          if (line.trim() !== '') transport.onmessage?.(JSON.parse(line) as JSONRPCMessage);
          newline = buffered.indexOf('\n');
        }
      });
    },
    async send(message) {
      output.write(`${JSON.stringify(message)}\n`);
    },
    async close() {
      output.end();
      transport.onclose?.();
    },
  };
  return transport;
}

async function stdioSession(sampling?: (prompt: string) => string) {
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  const logged: string[] = [];
  const rlm = await serveStdio({
    input: toServer,
    output: toClient,
    repl: { isolation: 'inline' },
    cwd: null,
    log: (line) => logged.push(line),
  });
  const client = samplingClient('stdio-test', sampling);
  await client.connect(streamTransport(toClient, toServer));
  return {
    rlm,
    client,
    logged,
    call: async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args }, undefined, {
        timeout: 60_000,
      })) as CallToolResult,
    async [Symbol.asyncDispose]() {
      await client.close();
      await rlm.close();
    },
  };
}

const text = (result: CallToolResult) =>
  result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');

describe('serveStdio message limit', () => {
  it('refuses a request over the limit with a JSON-RPC error naming it, and the session goes on', async () => {
    await using session = await stdioSession();
    const big = 'a'.repeat(DEFAULT_STDIO_MAX_MESSAGE_BYTES + 1024 * 1024);
    const refused = await session.call('context_load', { text: big }).catch((error) => error);
    expect(refused).toBeInstanceOf(McpError);
    expect((refused as McpError).message).toContain('10485760 bytes (10 MiB)');
    expect((refused as McpError).message).toMatch(/request \d+/);
    expect(session.logged.join('\n')).toContain('over this server');

    const loaded = await session.call('context_load', { text: 'small context' });
    expect(loaded.isError).toBeUndefined();
    const block = await session.call('repl_exec', { code: 'print(context.length)' });
    expect(text(block)).toContain('13');
  });

  it('fails a sampled llm_query whose answer is over the limit, at once, and keeps the session', async () => {
    const huge = 'b'.repeat(DEFAULT_STDIO_MAX_MESSAGE_BYTES + 1024 * 1024);
    let calls = 0;
    await using session = await stdioSession(() => {
      calls += 1;
      return calls === 1 ? huge : 'short answer';
    });
    const block = await session.call('repl_exec', {
      code: 'try { await llm_query("q") } catch (error) { print("failed: " + error.message) }',
    });
    expect(text(block)).toContain('failed:');
    expect(text(block)).toContain('10 MiB');
    const next = await session.call('repl_exec', { code: 'print(await llm_query("q"))' });
    expect(text(next)).toContain('short answer');
  });

  it('logs why the session ended when the client closes its end', async () => {
    const session = await stdioSession();
    await session.client.close();
    await session.rlm.closed;
    expect(session.logged.at(-1)).toContain('end of input');
  });
});
