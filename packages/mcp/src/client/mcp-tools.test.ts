import { fileURLToPath } from 'node:url';
import { RlmError } from '@rlm/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpFixture, startHttpFixture } from './__fixtures__/http-server.mjs';
import { type McpToolSet, mcpTools } from './mcp-tools.js';

const STDIO_SERVER = fileURLToPath(new URL('./__fixtures__/stdio-server.mjs', import.meta.url));
const signal = new AbortController().signal;

function stdioServer() {
  return { command: process.execPath, args: [STDIO_SERVER] };
}

async function call(set: McpToolSet, name: string, ...args: unknown[]) {
  const tool = set.tools[name];
  if (tool === undefined) throw new Error(`no tool ${name}`);
  return tool.call(args as never, { signal });
}

describe('mcpTools over stdio (a real child process)', () => {
  let set: McpToolSet;
  beforeAll(async () => {
    set = await mcpTools(stdioServer());
  });
  afterAll(async () => {
    await set.close();
  });

  it('lists every tool under a JavaScript name, with its call shape and parameter notes', () => {
    expect(Object.keys(set.tools).sort()).toEqual(
      ['add', 'call_count', 'explode', 'lorem', 'shout', 'wait', 'word_count'].sort(),
    );
    expect(set.tools['add']).toMatchObject({
      signature: '({ a: number, b: number })',
      description: 'Adds two numbers. Parameters: `a`: first addend.',
    });
    expect(set.tools['shout']?.signature).toBe('({ text: string, times?: number })');
    expect(set.tools['explode']?.signature).toBe('()');
    expect(set.server).toEqual({ name: 'rlm-fixture', version: '1.0.0' });
  });

  it('returns structured content when the tool gives it, else the text parts joined', async () => {
    expect(await call(set, 'add', { a: 2, b: 3 })).toEqual({ sum: 5 });
    expect(await call(set, 'shout', { text: 'hi', times: 2 })).toBe('HI\n!!');
    expect(await call(set, 'word_count', { text: 'one two  three' })).toBe('3');
  });

  it('checks arguments before the call: the error names the field and the server never sees it', async () => {
    const before = (await call(set, 'call_count')) as { count: number };
    const refused = call(set, 'add', { a: 'two', b: 3 });
    await expect(refused).rejects.toMatchObject({
      code: 'mcp.invalid_arguments',
      details: { tool: 'add', issues: ['a: must be number'] },
    });
    await expect(call(set, 'shout', {})).rejects.toThrow(/text: is required/);
    await expect(call(set, 'shout', 'hi')).rejects.toThrow(/one object argument/);
    const after = (await call(set, 'call_count')) as { count: number };
    expect(after.count).toBe(before.count);
  });

  it("rejects with the tool's own text when it reports an error", async () => {
    const failed = call(set, 'explode');
    await expect(failed).rejects.toMatchObject({ code: 'mcp.tool_failed' });
    await expect(failed).rejects.toThrow('explode failed: the tool broke: disk on fire');
  });

  it('aborts a call in flight when its signal fires, with the signal’s reason', async () => {
    const tool = set.tools['wait'];
    if (tool === undefined) throw new Error('no tool wait');
    const controller = new AbortController();
    const waiting = tool.call([{ ms: 120_000 }], { signal: controller.signal });
    // Abort once the server has the call, so the cancellation crosses the wire.
    await expect
      .poll(async () => ((await call(set, 'call_count')) as { names: string[] }).names, {
        timeout: 30_000,
      })
      .toContain('wait');
    const reason = new Error('block stopped');
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    // The connection is still usable afterwards.
    expect(await call(set, 'add', { a: 1, b: 1 })).toEqual({ sum: 2 });
  });

  it('cuts a long result with a visible marker', async () => {
    const small = await mcpTools(stdioServer(), { maxResultChars: 100, include: ['lorem'] });
    try {
      expect(Object.keys(small.tools)).toEqual(['lorem']);
      const text = (await call(small, 'lorem', { n: 5_000 })) as string;
      expect(text.startsWith('x'.repeat(100))).toBe(true);
      expect(text).toContain('4900 chars');
    } finally {
      await small.close();
    }
  });
});

describe('mcpTools connection lifecycle', () => {
  it('closes the connection once; later calls reject', async () => {
    const set = await mcpTools(stdioServer(), { prefix: 'fx_' });
    expect(Object.keys(set.tools)).toContain('fx_word_count');
    await set.close();
    await set.close();
    await expect(call(set, 'fx_add', { a: 1, b: 2 })).rejects.toMatchObject({
      code: 'mcp.tool_failed',
    });
  });

  it('reports a server that cannot start, with its last stderr output', async () => {
    const failed = mcpTools({
      command: process.execPath,
      args: ['-e', 'process.stderr.write("missing GITHUB_TOKEN\\n"); process.exit(3)'],
    });
    await expect(failed).rejects.toMatchObject({ code: 'mcp.connection_failed' });
    await expect(failed).rejects.toThrow(/missing GITHUB_TOKEN/);
  });

  it('reports a command that does not exist', async () => {
    const failed = mcpTools({ command: 'rlm-no-such-mcp-server-binary' });
    await expect(failed).rejects.toSatisfy(
      (error) =>
        RlmError.is(error, 'mcp.connection_failed') &&
        error.details.server === 'rlm-no-such-mcp-server-binary',
    );
  });

  it('refuses a bad spec or an unknown included tool, naming the field', async () => {
    await expect(mcpTools({ url: 'ftp://example.com' })).rejects.toMatchObject({
      code: 'config.invalid',
    });
    await expect(mcpTools(stdioServer(), { include: ['nope'] })).rejects.toThrow(
      /include: the server has no tool "nope"/,
    );
  });
});

describe('mcpTools over Streamable HTTP on 127.0.0.1', () => {
  let server: HttpFixture;
  beforeAll(async () => {
    server = await startHttpFixture();
  });
  afterAll(async () => {
    await server.close();
  });

  it('calls tools and sends the given headers', async () => {
    await using set = await mcpTools({
      url: server.url,
      headers: { authorization: 'Bearer fixture-token' },
    });
    expect(await call(set, 'add', { a: 20, b: 22 })).toEqual({ sum: 42 });
    expect(
      server.requests.some(
        (request) => request.headers['authorization'] === 'Bearer fixture-token',
      ),
    ).toBe(true);
  });

  it('reports an unreachable URL', async () => {
    const failed = mcpTools({ url: 'http://127.0.0.1:9/mcp' }, { connectTimeoutMs: 5_000 });
    await expect(failed).rejects.toMatchObject({
      code: 'mcp.connection_failed',
      details: { server: 'http://127.0.0.1:9/mcp' },
    });
  });
});
