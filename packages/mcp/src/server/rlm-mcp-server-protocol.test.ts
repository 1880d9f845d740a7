import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { type CallToolResult, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { samplingClient } from '../testing/index.js';
import { createRlmMcpServer, type RlmMcpServerOptions } from './rlm-mcp-server.js';

async function connect(options: RlmMcpServerOptions = {}, sampling?: (prompt: string) => string) {
  const rlm = createRlmMcpServer({ repl: { isolation: 'inline' }, cwd: null, ...options });
  const client = samplingClient('protocol-test', sampling);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await rlm.server.connect(serverSide);
  await client.connect(clientSide);
  return {
    rlm,
    client,
    call: async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult,
    async [Symbol.asyncDispose]() {
      await client.close();
      await rlm.close();
    },
  };
}

const text = (result: CallToolResult) =>
  result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');

type Usage = { models: Record<string, { calls: number }> };
const calls = (result: CallToolResult) =>
  Object.values((result.structuredContent as { usage: Usage }).usage.models).reduce(
    (sum, model) => sum + model.calls,
    0,
  );

describe('the MCP server speaks JSON-RPC errors where the spec says so', () => {
  it('answers an unknown tool with a JSON-RPC invalid-params error, not a tool result', async () => {
    await using session = await connect();
    const refused = await session.call('no_such_tool', {}).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(McpError);
    expect((refused as McpError).code).toBe(-32602);
    expect((refused as McpError).message).toContain('repl_exec');
  });

  it('answers an unknown resource with the resource-not-found code -32002', async () => {
    await using session = await connect();
    for (const uri of ['rlm://runs/nope', 'rlm://sessions/nope']) {
      const refused = await session.client.readResource({ uri }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(McpError);
      expect((refused as McpError).code).toBe(-32002);
    }
  });

  it('writes nullable fields of the output schemas as anyOf, never as a list of types', async () => {
    await using session = await connect({ runQuery: async () => Promise.reject(new Error('x')) });
    const { tools } = await session.client.listTools();
    const json = JSON.stringify(tools);
    expect(json).not.toMatch(/"type":\[/);
    const exec = tools.find((tool) => tool.name === 'repl_exec');
    expect(exec?.outputSchema?.properties?.['finalAnswer']).toEqual({
      anyOf: [{ type: 'string' }, { type: 'null' }],
    });
  });
});

describe('repl_exec and repl_reset report what they did', () => {
  it("counts the block's own sub-calls in usage: none for a block without one, after a reset too", async () => {
    await using session = await connect({}, () => 'sampled');
    const first = await session.call('repl_exec', { code: 'print(await llm_query("q"))' });
    expect(calls(first)).toBe(1);
    const second = await session.call('repl_exec', { code: 'print(1)' });
    expect(calls(second)).toBe(0);
    expect((second.structuredContent as { costUsd: number }).costUsd).toBe(0);
    const sessionUsage = (second.structuredContent as { sessionUsage: Usage }).sessionUsage;
    expect(Object.values(sessionUsage.models)[0]?.calls).toBe(1);
    await session.call('repl_reset', {});
    const third = await session.call('repl_exec', { code: 'print(2)' });
    expect(calls(third)).toBe(0);
  });

  it('does not claim a context is still loaded when none was', async () => {
    await using session = await connect();
    const reset = await session.call('repl_reset', {});
    expect(text(reset)).not.toContain('still loaded');
    expect(text(reset)).toContain('no context is loaded');
    await session.call('context_load', { text: 'abc' });
    expect(text(await session.call('repl_reset', {}))).toContain('still loaded (3 chars)');
  });
});

describe('a REPL reset the client did not see', () => {
  it('tells the next block that a cancelled, stalled block lost the variables', async () => {
    await using session = await connect({ repl: { isolation: 'worker' } });
    await session.call('repl_exec', { code: 'var kept = 41; var big = {}; 1' });
    // 60,000 levels: JSON.stringify of it is seconds inside one built-in call no interrupt reaches.
    for (let step = 0; step < 20; step += 1) {
      await session.call('repl_exec', { code: 'for (let i = 0; i < 3_000; i++) big = { big }; 1' });
    }
    const controller = new AbortController();
    const stalled = session.client.callTool(
      { name: 'repl_exec', arguments: { code: 'JSON.stringify(big).length' } },
      undefined,
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(new Error('user cancelled')), 500);
    await expect(stalled).rejects.toThrow('user cancelled');
    const after = (await session.call('repl_exec', {
      code: 'print(typeof kept)',
    })) as CallToolResult;
    expect(text(after)).toContain('undefined');
    expect(text(after)).toContain('the REPL was reset');
    expect(after.structuredContent).toMatchObject({ reset: { code: 'sandbox.reset' } });
    const later = await session.call('repl_exec', { code: 'print(1)' });
    expect(later.structuredContent).toMatchObject({ reset: null });
  });
});

describe('an idle sandbox', () => {
  it('is freed after repl.idleMs unused, and the next block says its variables are gone', async () => {
    await using session = await connect({ repl: { isolation: 'inline', idleMs: 300 } });
    await session.call('context_load', { text: 'kept context' });
    await session.call('repl_exec', { code: 'var kept = 41' });
    expect(session.rlm.sandboxOpen).toBe(true);
    await expect.poll(() => session.rlm.sandboxOpen, { timeout: 30_000 }).toBe(false);
    const after = await session.call('repl_exec', { code: 'print(typeof kept, context)' });
    expect(text(after)).toContain('undefined kept context');
    expect(text(after)).toContain('freed after');
    expect(after.structuredContent).toMatchObject({ reset: { code: 'sandbox.reset' } });
  });
});

describe('shutdown', () => {
  it('answers a call in flight with an error saying the server is shutting down', async () => {
    // Worker isolation: the spinning block must not hold the event loop the shutdown runs on.
    await using session = await connect({ repl: { isolation: 'worker' } });
    const spinning = session.call('repl_exec', { code: 'while (true) {}' });
    const queued = session.call('repl_exec', { code: 'print("never")' });
    // The block runs once its sandbox has started; the shutdown then comes under it.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await session.rlm.shutdown('the server is shutting down (SIGTERM)');
    for (const result of await Promise.all([spinning, queued])) {
      expect(result.isError).toBe(true);
      expect(text(result)).toContain('server.unavailable');
      expect(text(result)).toContain('shutting down (SIGTERM)');
    }
    await session.rlm.closed;
  });
});
