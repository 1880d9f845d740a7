import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { samplingClient } from '@rlm/mcp/testing';
import { type RequestRecorder, startRequestRecorder } from '@rlm/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../testing/run-cli-in-process.js';
import { BIN_PATH, createSandbox, type Sandbox } from '../testing/spawn-cli.js';

// `rlm mcp` runs with the user's keys in its environment; the client connected to it (a coding
// agent that may have read a hostile file) must not be able to send them anywhere.

let sandbox: Sandbox;
let recorder: RequestRecorder;

beforeEach(async () => {
  sandbox = createSandbox();
  recorder = await startRequestRecorder();
});
afterEach(async () => {
  sandbox.dispose();
  await recorder.close();
});

async function startRlmMcp(extraArgs: readonly string[] = []) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN_PATH, 'mcp', '--model', 'testkit:needle-finder', ...extraArgs],
    cwd: sandbox.dir,
    env: {
      PATH: process.env['PATH'] ?? '',
      ...sandbox.env,
      OPENAI_API_KEY: 'sk-user-secret',
      ANTHROPIC_API_KEY: 'sk-ant-user-secret',
    },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = samplingClient('agent', undefined, { model: 'client' });
  await client.connect(transport);
  return {
    stderr: () => stderr,
    call: async (args: Record<string, unknown>) =>
      (await client.callTool({ name: 'rlm_query', arguments: args })) as CallToolResult,
    async [Symbol.asyncDispose]() {
      await client.close();
    },
  };
}

const text = (result: CallToolResult) =>
  result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');

describe('rlm mcp: what a client may choose', () => {
  it('refuses a model naming a base URL, and that URL receives nothing', async () => {
    await using rlm = await startRlmMcp();
    for (const model of [`openai-compatible/gpt@${recorder.url}`, `openai/gpt-5@${recorder.url}`]) {
      const result = await rlm.call({ query: 'What is the magic number?', context: 'x', model });
      expect(result.isError).toBe(true);
      expect(text(result)).toContain('config.invalid');
      expect(text(result)).toContain('allowed: testkit:needle-finder');
    }
    expect(recorder.hits).toEqual([]);
  });

  it('refuses a provider model that is not allowed, and allows one that is', async () => {
    await using rlm = await startRlmMcp(['--allow-model', 'testkit:needle-finder-grep']);
    const refused = await rlm.call({ query: 'q', context: 'x', model: 'openai/gpt-5' });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain('testkit:needle-finder, testkit:needle-finder-grep');
    const allowed = await rlm.call({
      query: 'What is the magic number?',
      context: 'filler\nThe magic number is 4040.\nfiller',
      model: 'testkit:needle-finder-grep',
    });
    expect(text(allowed)).toContain('4040');
    expect(rlm.stderr()).toContain('a client may also choose testkit:needle-finder-grep');
  });

  it('takes an escalation ladder of allowed models only, naming the rung it refuses', async () => {
    await using rlm = await startRlmMcp(['--allow-model', 'testkit:needle-finder-grep']);
    const refused = await rlm.call({
      query: 'q',
      context: 'x',
      escalate: ['testkit:needle-finder-grep', `openai-compatible/gpt@${recorder.url}`],
    });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain('escalate[1]');
    expect(text(refused)).toContain('allowed: testkit:needle-finder, testkit:needle-finder-grep');
    expect(recorder.hits).toEqual([]);
    const allowed = await rlm.call({
      query: 'What is the magic number?',
      context: 'filler\nThe magic number is 5050.\nfiller',
      escalate: ['testkit:needle-finder-grep'],
      escalateAfterErrors: 2,
    });
    expect(allowed.isError).toBeUndefined();
    expect(text(allowed)).toContain('5050');
  });

  it('offers --allow-model on rlm mcp only', async () => {
    const run = await runCliInProcess(['run', 'q', '--allow-model', 'x'], {
      cwd: sandbox.dir,
      env: sandbox.env,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("unknown option '--allow-model'");
  });
});
