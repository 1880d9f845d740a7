import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { resolveModel } from '@rlm/executor';
import { samplingClient } from '@rlm/mcp/testing';
import { type FakeModelRequest, type FakeOpenAIServer, startFakeOpenAI } from '@rlm/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createExecutorEngine } from './executor-engine.js';
import { startTestServer, type TestServer } from './test-support/start-test-server.js';

/** Turn 1 finds the number with code; turn 2 answers with the variable it computed. */
function readsContext(request: FakeModelRequest) {
  const turns = request.messages.filter((message) => message.role === 'assistant').length;
  if (turns > 0) return 'FINAL_VAR(found)';
  return '```repl\nconst found = /magic number is (\\d+)/.exec(context)?.[1] ?? "none";\nprint(found)\n```';
}

let fake: FakeOpenAIServer;
let files: string;
let server: TestServer;

beforeAll(async () => {
  fake = await startFakeOpenAI({ flavor: 'vllm', requireAuth: false, script: readsContext });
});
afterAll(() => fake.close());
beforeEach(async () => {
  files = await mkdtemp(join(tmpdir(), 'rlm-mcp-files-'));
  await writeFile(join(files, 'notes.txt'), 'the magic number is 1234\n');
  server = await startTestServer({
    engine: createExecutorEngine({ resolveModel: (id) => resolveModel(id, { env: {} }) }),
    config: {
      profiles: { default: { model: `openai-compatible/llama3@${fake.url}` } },
      mcp: { roots: [files] },
    },
  });
});
afterEach(async () => {
  await server.close();
  await rm(files, { recursive: true, force: true });
});

async function connect(key: string, { sampling }: { sampling?: (prompt: string) => string } = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  const client = samplingClient('http-test', sampling, { model: 'client' });
  await client.connect(transport);
  return {
    client,
    transport,
    call: async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult,
    async [Symbol.asyncDispose]() {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    },
  };
}

const text = (result: CallToolResult) =>
  result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'x', version: '1' },
  },
};

describe('/mcp', () => {
  it('answers a delegated rlm_query from a file in the configured roots, as a recorded run', async () => {
    await using session = await connect(server.userKey);
    const { tools } = await session.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'rlm_query',
      'context_load',
      'repl_exec',
      'repl_reset',
    ]);
    const result = await session.call('rlm_query', {
      query: 'What is the magic number?',
      paths: ['notes.txt'],
    });
    expect(text(result)).toBe('1234');
    const runId = (result.structuredContent as { runId: string }).runId;
    const run = await server.request(`/v1/runs/${runId}`);
    expect(run.status).toBe(200);
    const { contents } = await session.client.readResource({ uri: `rlm://runs/${runId}` });
    const jsonl = contents[0] !== undefined && 'text' in contents[0] ? contents[0].text : '';
    const records = jsonl
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { kind: string });
    expect(records[0]).toMatchObject({ kind: 'header', runId });
    expect(records.some((record) => record.kind === 'model-exchange')).toBe(true);
  });

  it('runs client-written blocks whose llm_query is answered by the client’s sampling', async () => {
    await using session = await connect(server.userKey, { sampling: (prompt) => `echo ${prompt}` });
    await session.call('context_load', { text: 'hello' });
    const block = await session.call('repl_exec', { code: 'FINAL(await llm_query(context))' });
    expect(block.structuredContent).toMatchObject({ finalAnswer: 'echo hello' });
  });

  it('refuses a path outside the configured roots, and reads none from the client’s disk', async () => {
    await using session = await connect(server.userKey);
    const result = await session.call('context_load', { paths: ['/etc/hostname'] });
    expect(text(result)).toMatch(/^mcp\.path_refused:/);
  });

  it('refuses a request without a key (401) or from a foreign Origin (403)', async () => {
    const body = JSON.stringify(INITIALIZE);
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    const missing = await server.request('/mcp', { method: 'POST', body, headers, key: null });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toContain('Bearer');
    const foreign = await server.request('/mcp', {
      method: 'POST',
      body,
      headers: { ...headers, origin: 'https://evil.example' },
    });
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as { error: { code: string } }).error.code).toBe(
      'server.forbidden',
    );
  });

  it('keeps a session to the key that opened it, and frees it on DELETE', async () => {
    await using session = await connect(server.userKey);
    const id = session.transport.sessionId ?? '';
    expect(server.services.mcp.size()).toBe(1);
    const stolen = await server.request('/mcp', {
      method: 'POST',
      key: server.otherKey,
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': id,
        'mcp-protocol-version': '2025-06-18',
      },
    });
    expect(stolen.status).toBe(404);
    await session.transport.terminateSession();
    await expect.poll(() => server.services.mcp.size()).toBe(0);
  });
});

describe('/mcp idle sessions', () => {
  it('ends a session left unused for mcp.idleTimeoutMs, and the client is told it is gone', async () => {
    await server.close();
    server = await startTestServer({
      engine: createExecutorEngine({ resolveModel: (id) => resolveModel(id, { env: {} }) }),
      // Long enough that a loaded machine still sees the session right after connecting (a
      // 300 ms timeout could lapse between the client's last request and the check).
      config: { mcp: { idleTimeoutMs: 3_000 } },
    });
    await using session = await connect(server.userKey);
    expect(server.services.mcp.size()).toBe(1);
    await expect.poll(() => server.services.mcp.size(), { timeout: 30_000 }).toBe(0);
    await expect(session.client.listTools()).rejects.toThrow(/Session not found|404/);
  });
});

describe('/mcp sub-model', () => {
  let sub: FakeOpenAIServer;
  beforeAll(async () => {
    // The sub-model: answers with what it was asked, so the test sees the prompt arrived.
    sub = await startFakeOpenAI({
      requireAuth: false,
      promptCaching: false,
      script: (request) => `sub-model saw: ${request.messages.at(-1)?.content ?? ''}`,
    });
  });
  afterAll(() => sub.close());

  async function restart(maxima: Record<string, number> = {}) {
    await server.close();
    server = await startTestServer({
      engine: createExecutorEngine({ resolveModel: (id) => resolveModel(id, { env: {} }) }),
      resolveModel: (id) => resolveModel(id, { env: { OPENAI_BASE_URL: sub.url } }),
      config: {
        profiles: {
          default: {
            model: `openai-compatible/llama3@${fake.url}`,
            subModel: 'openai/gpt-5.4-mini',
          },
        },
        maxima: maxima as never,
        mcp: { roots: [files] },
      },
    });
  }

  it('answers llm_query with the default profile’s subModel when the client offers no sampling, usage and cost counted', async () => {
    await restart();
    await using session = await connect(server.userKey);
    const block = await session.call('repl_exec', { code: 'print(await llm_query("ping"))' });
    expect(block.isError).toBeUndefined();
    expect(text(block)).toContain('sub-model saw: ping');
    const { usage, costUsd } = block.structuredContent as {
      usage: { models: Record<string, { calls: number; outputTokens: number }> };
      costUsd: number;
    };
    const [id, used] = Object.entries(usage.models)[0] ?? [];
    expect(id).toContain('gpt-5.4-mini');
    expect(used?.calls).toBe(1);
    expect(used?.outputTokens).toBeGreaterThan(0);
    expect(costUsd).toBeGreaterThan(0);
    // Counted with the server's other model calls.
    const metrics = await (await server.request('/metrics', { key: server.adminKey })).text();
    expect(metrics).toMatch(/rlm_model_calls_total\{model="[^"]*gpt-5\.4-mini[^"]*",ok="true"\} 1/);
    expect(metrics).toMatch(/rlm_cost_usd_total\{model="[^"]*gpt-5\.4-mini[^"]*"\} [0-9.e-]+/);
  });

  it('refuses sub-calls past the server’s per-run maxima, as its runs are capped', async () => {
    await restart({ maxSubcalls: 1 });
    await using session = await connect(server.userKey);
    const before = sub.requests.length;
    expect(
      text(await session.call('repl_exec', { code: 'print(await llm_query("a"))' })),
    ).toContain('sub-model saw: a');
    const refused = await session.call('repl_exec', { code: 'print(await llm_query("b"))' });
    expect(text(refused)).toContain("this MCP session's subcalls budget is spent (1 of 1)");
    // The refused call never reached the model.
    expect(sub.requests.length - before).toBe(1);
  });

  it('records the session as rlm://sessions/{id}, its sub-calls with the model’s usage', async () => {
    await restart();
    await using session = await connect(server.userKey);
    await session.call('context_load', { paths: ['notes.txt'] });
    await session.call('repl_exec', { code: 'print(await llm_query("pong"))' });
    const { resources } = await session.client.listResources();
    const uri = resources.find((resource) => resource.uri.startsWith('rlm://sessions/'))?.uri;
    expect(uri).toBeDefined();
    const { contents } = await session.client.readResource({ uri: uri as string });
    const jsonl = contents[0] !== undefined && 'text' in contents[0] ? contents[0].text : '';
    const events = jsonl
      .trim()
      .split('\n')
      .map(
        (line) => JSON.parse(line) as { kind: string; event?: { type: string; usage?: unknown } },
      )
      .flatMap((record) => (record.event === undefined ? [] : [record.event]));
    expect(events.map((event) => event.type)).toEqual(
      expect.arrayContaining([
        'run-start',
        'block-start',
        'subcall-start',
        'model-call-end',
        'block-end',
      ]),
    );
    expect(events.find((event) => event.type === 'model-call-end')?.usage).toMatchObject({
      outputTokens: expect.any(Number),
    });
  });
});

describe('/mcp session caps and memory', () => {
  async function restart(mcp: Record<string, unknown>) {
    await server.close();
    server = await startTestServer({
      engine: createExecutorEngine({ resolveModel: (id) => resolveModel(id, { env: {} }) }),
      config: { mcp: mcp as never },
    });
  }
  const metric = async (pattern: RegExp) => {
    const body = await (await server.request('/metrics', { key: server.adminKey })).text();
    return Number(pattern.exec(body)?.[1] ?? Number.NaN);
  };

  it('caps sessions across keys, says so in /metrics, and answers 429 beyond the cap', async () => {
    await restart({ maxSessions: 2, reclaimAfterMs: 600_000 });
    await using first = await connect(server.userKey);
    await using second = await connect(server.otherKey);
    expect(first.transport.sessionId).toBeDefined();
    expect(second.transport.sessionId).toBeDefined();
    const refused = await server.request('/mcp', {
      method: 'POST',
      body: JSON.stringify(INITIALIZE),
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
    });
    expect(refused.status).toBe(429);
    const wait = Number(refused.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(600);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain(
      'The server has 2 MCP sessions open',
    );
    expect(await metric(/rlm_mcp_sessions\{state="open"\} (\d+)/)).toBe(2);
    expect(await metric(/rlm_mcp_sessions_limit\{scope="server"\} (\d+)/)).toBe(2);
    expect(await metric(/rlm_mcp_session_memory_limit_bytes (\d+)/)).toBe(256 * 1024 * 1024);
  });

  it('lets clients that never send DELETE (the SDK’s close()) be replaced instead of locking the key out', async () => {
    await restart({ sessionsPerKey: 2, reclaimAfterMs: 0 });
    for (let round = 0; round < 4; round += 1) {
      const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${server.userKey}` } },
      });
      const client = samplingClient('leaves-without-delete', undefined);
      await client.connect(transport);
      await client.listTools();
      await client.close();
    }
    expect(server.services.mcp.size()).toBeLessThanOrEqual(2);
  });

  it('tells a refused client truthfully how long to wait: retrying after retry-after succeeds', async () => {
    await restart({ sessionsPerKey: 1, reclaimAfterMs: 2_000 });
    await using first = await connect(server.userKey);
    await first.client.listTools();
    const open = () =>
      server.request('/mcp', {
        method: 'POST',
        body: JSON.stringify(INITIALIZE),
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
      });
    const refused = await open();
    expect(refused.status).toBe(429);
    const wait = Number(refused.headers.get('retry-after'));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(2);
    await new Promise((resolve) => setTimeout(resolve, wait * 1_000 + 100));
    const accepted = await open();
    expect(accepted.status).toBe(200);
    await accepted.body?.cancel();
  });

  it('caps the memory of a session’s sandbox at mcp.sessionMemoryBytes', async () => {
    await restart({ sessionMemoryBytes: 32 * 1024 * 1024 });
    await using session = await connect(server.userKey);
    const block = await session.call('repl_exec', {
      code: 'const parts = []; for (let i = 0; i < 64; i++) parts.push("x".repeat(1_000_000) + i); print(parts.length)',
    });
    expect(text(block)).toMatch(/out of memory|sandbox\.out_of_memory/i);
  });

  it('frees an idle session’s sandbox after mcp.sandboxIdleMs, and /metrics shows it', async () => {
    await restart({ sandboxIdleMs: 500 });
    await using session = await connect(server.userKey);
    await session.call('repl_exec', { code: 'var kept = 1' });
    await expect
      .poll(() => metric(/rlm_mcp_sessions\{state="sandbox"\} (\d+)/), { timeout: 30_000 })
      .toBe(0);
    expect(server.services.mcp.size()).toBe(1);
    const after = await session.call('repl_exec', { code: 'print(typeof kept)' });
    expect(text(after)).toContain('freed after');
  });
});

describe('/mcp at shutdown', () => {
  it('answers a call in flight with an error saying the server is shutting down', async () => {
    const session = await connect(server.userKey);
    const spinning = session.call('repl_exec', { code: 'while (true) {}' });
    // The block runs once its sandbox has started; then the server stops under it.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await server.services.shutdown(5_000);
    const result = await spinning;
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('server.unavailable');
    expect(text(result)).toContain('shutting down');
  });
});

describe('/mcp body limit', () => {
  it('accepts a context_load text above the SDK’s 4 MiB, up to limits.contextBytes', async () => {
    await using session = await connect(server.userKey);
    const loaded = await session.call('context_load', { text: 'x'.repeat(6 * 1024 * 1024) });
    expect(loaded.isError).toBeUndefined();
    expect(loaded.structuredContent).toMatchObject({ chars: 6 * 1024 * 1024 });
  });

  it('refuses a body over limits.contextBytes with the server’s own error, naming the limit', async () => {
    await server.close();
    server = await startTestServer({
      engine: createExecutorEngine({ resolveModel: (id) => resolveModel(id, { env: {} }) }),
      config: { limits: { contextBytes: 1024 * 1024 } as never },
    });
    await using session = await connect(server.userKey);
    const refused = await session
      .call('context_load', { text: 'x'.repeat(2 * 1024 * 1024) })
      .catch((error: unknown) => error);
    expect(String(refused)).toContain('server.payload_too_large');
    expect(String(refused)).toMatch(/JSON-RPC id \d+/);
    expect(String(refused)).toContain('1048576 bytes');
    // The session goes on.
    const block = await session.call('repl_exec', { code: 'print(6 * 7)' });
    expect(text(block)).toContain('42');
  });

  it('fails a block’s llm_query at once when the client’s sampled answer is over the limit', async () => {
    await server.close();
    server = await startTestServer({
      engine: createExecutorEngine({ resolveModel: (id) => resolveModel(id, { env: {} }) }),
      config: { limits: { contextBytes: 1024 * 1024 } as never },
    });
    let calls = 0;
    await using session = await connect(server.userKey, {
      sampling: () => {
        calls += 1;
        return calls === 1 ? 'y'.repeat(2 * 1024 * 1024) : 'short';
      },
    });
    const block = await session.call('repl_exec', {
      code: 'try { await llm_query("q") } catch (error) { print("failed: " + error.message) }',
    });
    expect(text(block)).toContain('failed:');
    expect(text(block)).toContain('over the /mcp limit of 1048576 bytes');
    const next = await session.call('repl_exec', { code: 'print(await llm_query("q"))' });
    expect(text(next)).toContain('short');
  });
});

describe('/mcp Host and Origin allowlist (DNS rebinding)', () => {
  /** A POST as a browser page on a rebound name sends it: its own name as Host and Origin. */
  function postAs(name: string): Promise<{ status: number; body: string }> {
    const { port } = new URL(server.url);
    const body = JSON.stringify(INITIALIZE);
    return new Promise((resolve, reject) => {
      const request = httpRequest(
        {
          host: '127.0.0.1',
          port,
          path: '/mcp',
          method: 'POST',
          headers: {
            host: `${name}:${port}`,
            origin: `http://${name}:${port}`,
            authorization: `Bearer ${server.userKey}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'content-length': Buffer.byteLength(body),
          },
        },
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => {
            text += chunk;
            // An accepted initialize answers on an event stream: its first event is enough.
            if (response.statusCode === 200 && text.includes('\n\n')) response.destroy();
          });
          response.on('close', () => resolve({ status: response.statusCode ?? 0, body: text }));
        },
      );
      request.on('error', reject);
      request.end(body);
    });
  }

  it('refuses a request whose Host is not an allowed name, even from that name’s own origin', async () => {
    const refused = await postAs('rebound.example');
    expect(refused.status).toBe(403);
    expect(refused.body).toContain('Host rebound.example');
    expect(refused.body).toContain('mcp.allowedHosts');
    expect((await postAs('localhost')).status).toBe(200);
  });

  it('answers a name added to mcp.allowedHosts', async () => {
    await server.close();
    server = await startTestServer({
      engine: createExecutorEngine({ resolveModel: (id) => resolveModel(id, { env: {} }) }),
      config: { mcp: { allowedHosts: ['rlm.internal.example'] } as never },
    });
    expect((await postAs('rlm.internal.example')).status).toBe(200);
    expect((await postAs('rebound.example')).status).toBe(403);
  });
});
