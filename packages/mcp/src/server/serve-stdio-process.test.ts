import { fileURLToPath } from 'node:url';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type CallToolResult, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { samplingClient } from '../testing/index.js';

const FIXTURE = fileURLToPath(new URL('./__fixtures__/rlm-stdio-server.mjs', import.meta.url));

async function spawnServer() {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [FIXTURE],
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = samplingClient('process-test');
  await client.connect(transport);
  const pid = transport.pid as number;
  const exited = new Promise<void>((resolve) => {
    const poll = setInterval(() => {
      try {
        process.kill(pid, 0);
      } catch {
        clearInterval(poll);
        resolve();
      }
    }, 100);
  });
  return {
    client,
    pid,
    exited,
    stderr: () => stderr,
    call: async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args }, undefined, {
        timeout: 60_000,
      })) as CallToolResult,
    async [Symbol.asyncDispose]() {
      await client.close().catch(() => undefined);
    },
  };
}

const text = (result: CallToolResult) =>
  result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');

describe('serveStdio in a child process (as rlm mcp)', () => {
  it('refuses an 11 MiB message with a JSON-RPC error, logs it on stderr, and keeps serving', async () => {
    await using server = await spawnServer();
    const refused = await server
      .call('context_load', { text: 'a'.repeat(11 * 1024 * 1024) })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(McpError);
    expect((refused as McpError).message).toContain('10 MiB');
    const block = await server.call('repl_exec', { code: 'print(6 * 7)' });
    expect(text(block)).toContain('42');
    await expect.poll(server.stderr).toContain('over this server');
  });

  it('answers a call in flight on SIGTERM with a shutting-down error, then exits', async () => {
    await using server = await spawnServer();
    await server.call('repl_exec', { code: '1' });
    const spinning = server.call('repl_exec', { code: 'while (true) {}' });
    // The block is running once the call was sent and the worker picked it up.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    process.kill(server.pid, 'SIGTERM');
    const result = await spinning;
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('shutting down (SIGTERM)');
    await server.exited;
    expect(server.stderr()).toContain('SIGTERM');
  });
});
