import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_MODEL_ID } from '@rlm/executor/defaults';
import { samplingClient } from '@rlm/mcp/testing';
import { type FakeOpenAIServer, startFakeOpenAI } from '@rlm/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readsContextPolicy } from '../testing/reads-context-policy.js';
import { runCliInProcess } from '../testing/run-cli-in-process.js';
import { startMcpInProcess } from '../testing/run-mcp-in-process.js';
import { BIN_PATH, createSandbox, type Sandbox } from '../testing/spawn-cli.js';

let server: FakeOpenAIServer;
let sandbox: Sandbox;

beforeAll(async () => {
  server = await startFakeOpenAI({
    flavor: 'vllm',
    requireAuth: false,
    script: readsContextPolicy(),
  });
});
afterAll(() => server.close());
beforeEach(() => {
  sandbox = createSandbox();
  mkdirSync(join(sandbox.dir, 'project'));
  writeFileSync(join(sandbox.dir, 'project', 'notes.txt'), 'the magic number is 1234\n');
  writeFileSync(join(sandbox.dir, 'secret.txt'), 'private');
});
afterEach(() => sandbox.dispose());

/**
 * `rlm mcp` with its stdio joined to a client: in this process (`startMcpInProcess`: the command's
 * behaviour), or with `spawned`, started from its bin the way a client's configuration starts it
 * (what only the real process shows: its stdout carries nothing but the protocol).
 */
async function startRlmMcp({
  sampling,
  args = ['--model', `openai-compatible/llama3@${server.url}`],
  spawned = false,
}: {
  sampling?: (prompt: string) => string;
  args?: string[];
  spawned?: boolean;
} = {}) {
  const cwd = join(sandbox.dir, 'project');
  let stderr = () => '';
  let exited: Promise<unknown> = Promise.resolve();
  let transport: Transport;
  if (spawned) {
    const stdio = new StdioClientTransport({
      command: process.execPath,
      args: [BIN_PATH, 'mcp', ...args],
      cwd,
      env: { PATH: process.env['PATH'] ?? '', ...sandbox.env },
      stderr: 'pipe',
    });
    let written = '';
    stdio.stderr?.on('data', (chunk: Buffer) => {
      written += chunk.toString('utf8');
    });
    stderr = () => written;
    transport = stdio;
  } else {
    const inProcess = startMcpInProcess(args, { cwd, env: sandbox.env });
    ({ transport, stderr, exited } = inProcess);
  }
  const client = samplingClient('cli-test', sampling, { model: 'client' });
  await client.connect(transport);
  return {
    client,
    stderr,
    call: async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult,
    async [Symbol.asyncDispose]() {
      await client.close();
      // The session has ended, and written its record, once the command returns.
      await exited;
    },
  };
}

const text = (result: CallToolResult) =>
  result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');

describe('rlm mcp', () => {
  it('answers rlm_query over a file through the configured model and lists the run', async () => {
    await using rlm = await startRlmMcp({ spawned: true });
    const { tools } = await rlm.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'rlm_query',
      'context_load',
      'repl_exec',
      'repl_reset',
    ]);
    const result = await rlm.call('rlm_query', {
      query: 'What is the magic number?',
      paths: ['notes.txt'],
    });
    expect(text(result)).toBe('1234');
    expect(result.structuredContent).toMatchObject({ answer: '1234', outcome: 'completed' });
    const runId = (result.structuredContent as { runId: string }).runId;
    const { contents } = await rlm.client.readResource({ uri: `rlm://runs/${runId}` });
    const jsonl = contents[0] !== undefined && 'text' in contents[0] ? contents[0].text : '';
    const records = jsonl
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { kind: string });
    expect(records[0]).toMatchObject({ kind: 'header', runId });
    expect(records.some((record) => record.kind === 'model-exchange')).toBe(true);
    // Logs went to stderr; stdout carried only the protocol (the client parsed every line).
    expect(rlm.stderr()).toContain('rlm mcp: serving over stdio');
  });

  it('runs client-written blocks whose llm_query goes back to the client through sampling', async () => {
    await using rlm = await startRlmMcp({ sampling: (prompt) => `seen: ${prompt.length} chars` });
    await rlm.call('context_load', { paths: ['notes.txt'] });
    const messages: string[] = [];
    // Two sub-calls in a row: the SDK's client handles a notification a microtask later than a
    // response read in the same chunk of stdout, so the progress of a block's last sub-call can
    // be dropped by the client; the first one's is read while the second is still being sampled.
    const block = (await rlm.client.callTool(
      {
        name: 'repl_exec',
        arguments: {
          code: 'const first = await llm_query(context)\nFINAL(await llm_query(first))',
        },
      },
      undefined,
      { onprogress: (progress) => messages.push(progress.message ?? '') },
    )) as CallToolResult;
    expect(block.structuredContent).toMatchObject({ finalAnswer: 'seen: 14 chars' });
    expect(messages[0]).toBe('sub-call via sampling done');
  });

  it('refuses a path outside the working directory', async () => {
    await using rlm = await startRlmMcp();
    const result = await rlm.call('context_load', { paths: ['../secret.txt'] });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^mcp\.path_refused:/);
  });

  it('stops a spinning block when the client cancels it, and keeps serving', async () => {
    await using rlm = await startRlmMcp();
    const controller = new AbortController();
    const spinning = rlm.client.callTool(
      { name: 'repl_exec', arguments: { code: 'while (true) {}' } },
      undefined,
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(new Error('cancelled by the user')), 1_000);
    await expect(spinning).rejects.toThrow('cancelled by the user');
    expect(text(await rlm.call('repl_exec', { code: 'print(6 * 7)' }))).toContain('42');
  });

  it('answers llm_query with the configured model when the client offers no sampling', async () => {
    await using rlm = await startRlmMcp();
    const block = await rlm.call('repl_exec', { code: 'print(await llm_query("hello"))' });
    // The fake server's first-turn reply: the call went to --model over HTTP.
    expect(text(block)).toContain('I will read the context first.');
  });

  it('records the session beside the runs: rlm trace shows its blocks and sub-calls, rlm replay refuses it', async () => {
    let stderr = '';
    {
      await using rlm = await startRlmMcp({ sampling: (prompt) => `echo ${prompt}` });
      await rlm.call('context_load', { paths: ['notes.txt'] });
      await rlm.call('repl_exec', { code: 'print(await llm_query("ping"))' });
      const id = /rlm trace (mcp-[\w-]+)/.exec(rlm.stderr())?.[1] ?? '';
      // The record is readable while the session lives, as a resource.
      const { contents } = await rlm.client.readResource({ uri: `rlm://sessions/${id}` });
      expect(contents[0] !== undefined && 'text' in contents[0] ? contents[0].text : '').toContain(
        '"kind":"mcp-session"',
      );
      stderr = rlm.stderr();
    }
    const id = /rlm trace (mcp-[\w-]+)/.exec(stderr)?.[1];
    expect(id).toBeDefined();
    const cwd = join(sandbox.dir, 'project');
    const trace = await runCliInProcess(['trace', id as string], { cwd, env: sandbox.env });
    expect(trace.code).toBe(0);
    expect(trace.stdout).toContain('mcp-client/cli-test');
    expect(trace.stdout).toContain('print(await llm_query("ping"))');
    expect(trace.stdout).toMatch(/llm_query sampling ✓ "ping" → echo ping/);
    const replay = await runCliInProcess(['replay', id as string], { cwd, env: sandbox.env });
    expect(replay.code).toBe(2);
    expect(replay.stderr).toContain('records an MCP session');
    expect(replay.stderr).toContain(`rlm trace ${id}`);
  });

  it("without --model and without the default model's key, rlm_query says to set the variable or pass --model", async () => {
    await using rlm = await startRlmMcp({ args: [] });
    const { tools } = await rlm.client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('rlm_query');
    const result = await rlm.call('rlm_query', {
      query: 'What is the magic number?',
      paths: ['notes.txt'],
    });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('ANTHROPIC_API_KEY');
    expect(text(result)).toContain('--model');
    expect(text(result)).not.toContain('apiKey');
  });

  it('reads a run an earlier session recorded as rlm://runs/{id}; an unknown or escaping id is resource-not-found', async () => {
    const args = ['--model', 'testkit:needle-finder'];
    let runId = '';
    {
      await using first = await startRlmMcp({ args });
      const result = await first.call('rlm_query', {
        query: 'What is the magic number?',
        paths: ['notes.txt'],
      });
      runId = (result.structuredContent as { runId: string }).runId;
    }
    // A trajectory beside the directory, not in it: an id must not reach it.
    const trajectories = join(sandbox.env['XDG_DATA_HOME'] as string, 'rlm', 'trajectories');
    copyFileSync(join(trajectories, `${runId}.jsonl`), join(trajectories, '..', 'escaped.jsonl'));
    await using second = await startRlmMcp({ args });
    const { contents } = await second.client.readResource({ uri: `rlm://runs/${runId}` });
    const jsonl = contents[0] !== undefined && 'text' in contents[0] ? contents[0].text : '';
    expect(JSON.parse(jsonl.split('\n')[0] ?? '{}')).toMatchObject({ kind: 'header', runId });
    for (const id of [
      'no-such-run',
      '../escaped',
      `../${runId}`,
      `..%2F${runId}`,
      `${runId}/../${runId}`,
    ]) {
      await expect(second.client.readResource({ uri: `rlm://runs/${id}` })).rejects.toMatchObject({
        code: -32002,
      });
    }
  });

  it("shows the default model in its help's set-up examples", async () => {
    const help = await runCliInProcess(['mcp', '--help'], { cwd: sandbox.dir, env: sandbox.env });
    const after = help.stdout.split('Examples:')[1] ?? '';
    const examples = [...after.matchAll(/--model (\S+)/g)].map((match) => match[1]);
    expect(examples.length).toBeGreaterThan(0);
    for (const model of examples) expect(model).toBe(DEFAULT_MODEL_ID);
  });
});
