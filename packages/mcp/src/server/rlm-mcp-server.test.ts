import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { type CallToolResult, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createRunner } from '@rlm/executor';
import { emptyUsage } from '@rlm/protocol';
import { scriptedModel } from '@rlm/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { samplingClient } from '../testing/index.js';
import { createRlmMcpServer, type RlmMcpServerOptions } from './rlm-mcp-server.js';
import { type RlmQueryRunner, rlmQueryRunner } from './rlm-query-runner.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rlm-mcp-server-'));
  await mkdir(join(dir, 'project'));
  await writeFile(join(dir, 'project', 'notes.txt'), 'alpha\nthe magic number is 4217\nomega\n');
  await writeFile(join(dir, 'project', 'other.md'), '# Other\nnothing here\n');
  await writeFile(join(dir, 'secret.txt'), 'do not read');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface ClientSetup {
  sampling?: (prompt: string) => string;
  roots?: string[];
}

async function connect(options: RlmMcpServerOptions, setup: ClientSetup = {}) {
  const rlm = createRlmMcpServer({ repl: { isolation: 'inline' }, ...options });
  const client = samplingClient('test-client', setup.sampling, {
    roots: setup.roots !== undefined,
  });
  if (setup.roots !== undefined) {
    const roots = setup.roots;
    client.setRequestHandler(ListRootsRequestSchema, () => ({
      roots: roots.map((root) => ({ uri: pathToFileURL(root).href })),
    }));
  }
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await rlm.server.connect(serverSide);
  await client.connect(clientSide);
  return {
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

describe('createRlmMcpServer', () => {
  it('lists the four tools with JSON Schemas for their arguments and results', async () => {
    await using session = await connect({
      runQuery: async () => Promise.reject(new Error('unused')),
    });
    const { tools } = await session.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'rlm_query',
      'context_load',
      'repl_exec',
      'repl_reset',
    ]);
    const query = tools.find((tool) => tool.name === 'rlm_query');
    expect(query?.inputSchema.required).toEqual(['query']);
    expect(Object.keys(query?.outputSchema?.properties ?? {})).toEqual(
      expect.arrayContaining(['answer', 'outcome', 'runId', 'usage', 'costUsd']),
    );
  });

  it('leaves rlm_query out when no runner is configured', async () => {
    await using session = await connect({});
    const { tools } = await session.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['context_load', 'repl_exec', 'repl_reset']);
  });

  it('loads a file from the client root and answers llm_query through the client’s sampling', async () => {
    const prompts: string[] = [];
    await using session = await connect(
      {},
      {
        roots: [join(dir, 'project')],
        sampling: (prompt) => {
          prompts.push(prompt);
          return prompt.includes('4217') ? '4217' : 'none';
        },
      },
    );
    const loaded = await session.call('context_load', { paths: ['notes.txt'] });
    expect(loaded.structuredContent).toMatchObject({ lines: 4, files: ['notes.txt'] });
    const block = await session.call('repl_exec', {
      code: 'const hits = await grep("magic");\nconst n = await llm_query("Which number? " + hits.matches[0].text);\nFINAL(n)',
    });
    expect(block.isError).toBeUndefined();
    expect(block.structuredContent).toMatchObject({ finalAnswer: '4217', subCalls: 1 });
    expect(text(block)).toContain('4217');
    expect(prompts).toEqual(['Which number? the magic number is 4217']);
  });

  it('keeps variables across blocks until repl_reset, which keeps the context', async () => {
    await using session = await connect({});
    await session.call('context_load', { text: 'abc' });
    await session.call('repl_exec', { code: 'const seen = context.length' });
    expect(text(await session.call('repl_exec', { code: 'print(seen)' }))).toContain('3');
    await session.call('repl_reset', {});
    const after = await session.call('repl_exec', { code: 'print(typeof seen, context)' });
    expect(text(after)).toContain('undefined abc');
  });

  it('answers llm_query with the configured model when the client offers no sampling', async () => {
    const model = scriptedModel(['from the model', 'again'], {
      pricing: { inputPerMTok: 1, outputPerMTok: 1 },
    });
    await using session = await connect({ subModel: model });
    const block = await session.call('repl_exec', {
      code: 'const r = await llm_query_batched(["a", "b"]);\nprint(r.join("|"))',
    });
    expect(text(block)).toContain('from the model|again');
    const usage = (
      block.structuredContent as { usage: { models: Record<string, { calls: number }> } }
    ).usage;
    expect(usage.models['scripted/model']?.calls).toBe(2);
  });

  it('tells the block how to enable llm_query when there is neither sampling nor a model', async () => {
    await using session = await connect({});
    const block = await session.call('repl_exec', { code: 'await llm_query("hi")' });
    expect(text(block)).toContain('llm_query has no model');
    expect(text(block)).toContain('sampling');
    expect(text(block)).toContain('--sub-model');
  });
});

describe('createRlmMcpServer files and trust', () => {
  it('refuses .., absolute paths outside the roots and symlinks that leave them, naming the code', async () => {
    await symlink(join(dir, 'secret.txt'), join(dir, 'project', 'escape.txt'));
    await using session = await connect({ cwd: join(dir, 'project') });
    for (const path of ['../secret.txt', join(dir, 'secret.txt'), 'escape.txt', '../*.txt']) {
      const result = await session.call('context_load', { paths: [path] });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/^mcp\.path_refused: Path .* is refused/);
      expect(result._meta?.['rlm/error']).toMatchObject({
        code: 'mcp.path_refused',
        kind: 'usage',
      });
    }
  });

  it('loads a glob and a directory inside the roots once each, paths marked', async () => {
    await using session = await connect({ cwd: dir, roots: [] });
    const result = await session.call('context_load', { paths: ['project/*.txt', 'project'] });
    expect(result.structuredContent).toMatchObject({
      files: ['project/notes.txt', 'project/other.md'],
    });
    expect((result.structuredContent as { preview: string }).preview).toContain(
      '=== project/notes.txt ===\nalpha',
    );
  });

  it('allows a --root directory besides the client’s roots', async () => {
    const extra = await mkdtemp(join(tmpdir(), 'rlm-mcp-root-'));
    try {
      await writeFile(join(extra, 'more.txt'), 'more text');
      await using session = await connect({ roots: [extra] }, { roots: [join(dir, 'project')] });
      const result = await session.call('context_load', { paths: [join(extra, 'more.txt')] });
      expect(result.structuredContent).toMatchObject({ preview: 'more text' });
    } finally {
      await rm(extra, { recursive: true, force: true });
    }
  });

  it('refuses a context over maxContextBytes', async () => {
    await using session = await connect({ cwd: join(dir, 'project'), maxContextBytes: 10 });
    const result = await session.call('context_load', { paths: ['notes.txt'] });
    expect(text(result)).toMatch(/^mcp\.context_too_large:/);
  });

  it('answers bad arguments with an error that names the field', async () => {
    await using session = await connect({});
    const missing = await session.call('repl_exec', {});
    expect(text(missing)).toMatch(/^mcp\.invalid_arguments: repl_exec: invalid arguments: code:/);
    const extra = await session.call('context_load', { text: 'x', path: 'typo' });
    expect(text(extra)).toContain('path');
    expect(extra._meta?.['rlm/error']).toMatchObject({ code: 'mcp.invalid_arguments' });
  });
});

describe('createRlmMcpServer rlm_query', () => {
  it('runs a delegated query over a file and lists the run as a resource', async () => {
    const model = scriptedModel([
      'Look:\n```repl\nconst hit = (await grep("magic")).matches[0].text;\nprint(hit)\n```',
      'FINAL(4217)',
    ]);
    const runQuery = rlmQueryRunner({
      runner: createRunner({ resolveModel: () => model, isolation: 'inline' }),
      settings: { model: model.id },
    });
    await using session = await connect({ runQuery, cwd: join(dir, 'project') });
    const result = await session.call('rlm_query', {
      query: 'What is the magic number?',
      paths: ['notes.txt'],
    });
    expect(result.isError).toBeUndefined();
    expect(text(result)).toBe('4217');
    expect(result.structuredContent).toMatchObject({ answer: '4217', outcome: 'completed' });
    const runId = (result.structuredContent as { runId: string }).runId;
    const { resources } = await session.client.listResources();
    expect(resources.map((resource) => resource.uri)).toEqual([`rlm://runs/${runId}`]);
  });

  it('returns a run that ended without an answer as an error naming the outcome', async () => {
    const model = scriptedModel(['thinking', 'still thinking', 'no idea']);
    const runQuery = rlmQueryRunner({
      runner: createRunner({ resolveModel: () => model, isolation: 'inline' }),
      settings: { model: model.id },
    });
    await using session = await connect({ runQuery });
    const result = await session.call('rlm_query', { query: 'q', context: 'c', maxIterations: 1 });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('outcome: max_iterations');
    expect(result.structuredContent).toMatchObject({ answer: null, outcome: 'max_iterations' });
  });
});

describe('createRlmMcpServer rlm_query with refused sub-calls', () => {
  it('returns the answer with refusedCalls and a note when a budget refused sub-calls', async () => {
    const fence = (code: string) => `\`\`\`repl\n${code}\n\`\`\``;
    // The root starts two children sharing 18 of 20 sub-calls; child A asks for 10 of its 9.
    const model = scriptedModel((request) => {
      if (request.system === undefined) return 'piece';
      if (request.system.includes('CHILD-A')) {
        return fence(
          'for (let i = 0; i < 10; i++) { try { await llm_query("p" + i) } catch (e) {} }',
        );
      }
      if (request.system.includes('CHILD-B')) return fence('FINAL("b")');
      return fence(
        'const rs = await rlm_query_batched([{ prompt: "a", systemPrompt: "CHILD-A" }, { prompt: "b", systemPrompt: "CHILD-B" }])\nFINAL("root saw: " + rs[0].slice(0, 20))',
      );
    });
    const runQuery = rlmQueryRunner({
      runner: createRunner({ resolveModel: () => model, isolation: 'inline' }),
      settings: { model: model.id, limits: { maxDepth: 2, maxSubcalls: 20 } },
    });
    await using session = await connect({ runQuery });
    const result = await session.call('rlm_query', { query: 'q', context: 'c' });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({ outcome: 'completed', refusedCalls: 1 });
    expect(result.content.at(-1)).toMatchObject({
      type: 'text',
      text: expect.stringContaining('a budget refused 1 sub-call'),
    });
  });
});

describe('createRlmMcpServer progress and cancellation', () => {
  it('sends a progress notification per finished sub-call of a block', async () => {
    await using session = await connect({}, { sampling: (prompt) => prompt.toUpperCase() });
    const messages: string[] = [];
    const result = (await session.client.callTool(
      {
        name: 'repl_exec',
        arguments: { code: 'print((await llm_query_batched(["a", "b", "c"])).join(""))' },
      },
      undefined,
      { onprogress: (progress) => messages.push(progress.message ?? '') },
    )) as CallToolResult;
    expect(text(result)).toContain('ABC');
    expect(messages).toEqual(Array(3).fill('sub-call via sampling done'));
  });

  it('stops a spinning block when the client cancels, and the session stays usable', async () => {
    // Worker isolation: spinning guest code must not hold the event loop that hears the cancel.
    await using session = await connect({ repl: { isolation: 'worker' } });
    await session.call('repl_exec', { code: 'const kept = 41' });
    const controller = new AbortController();
    const spinning = session.client.callTool(
      { name: 'repl_exec', arguments: { code: 'while (true) {}' } },
      undefined,
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(new Error('user cancelled')), 500);
    await expect(spinning).rejects.toThrow('user cancelled');
    const after = await session.call('repl_exec', { code: 'print(kept + 1)' });
    expect(text(after)).toContain('42');
  });

  it('frees the session at once on close, even with a block still spinning', async () => {
    const rlm = createRlmMcpServer({ repl: { isolation: 'worker' } });
    const client = new Client({ name: 'test-client', version: '1.0.0' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await rlm.server.connect(serverSide);
    await client.connect(clientSide);
    const spinning = client
      .callTool({ name: 'repl_exec', arguments: { code: 'while (true) {}' } })
      .catch((error: unknown) => error);
    // The block is running once its sandbox has started; then the session ends under it.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await rlm.close();
    await rlm.closed;
    expect(await spinning).toBeInstanceOf(Error);
  });
});

describe('createRlmMcpServer rlm_query of a run whose REPL was reset', () => {
  it('returns sandboxResets and a note beside the answer', async () => {
    const runQuery: RlmQueryRunner = async (request) => ({
      runId: 'run-1',
      rootRunId: 'run-1',
      parentRunId: null,
      depth: 0,
      model: 'scripted/model',
      query: request.query,
      answer: 'done',
      status: 'completed',
      partialAnswer: null,
      usage: emptyUsage(),
      sandboxResets: 2,
      iterations: 3,
      executionTime: 1,
      trajectoryPath: null,
      error: null,
    });
    await using session = await connect({ runQuery });
    const result = await session.call('rlm_query', { query: 'q', context: 'c' });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({ outcome: 'completed', sandboxResets: 2 });
    expect(result.content.at(-1)).toMatchObject({
      type: 'text',
      text: expect.stringContaining("this run's REPL was reset 2 times (sandbox.reset"),
    });
  });
});
