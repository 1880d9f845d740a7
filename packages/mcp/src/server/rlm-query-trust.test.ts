import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createRunner, type RunnerModelResolver, resolveModel } from '@rlm/executor';
import type { RunSettingsInput } from '@rlm/protocol';
import {
  type RequestRecorder,
  type ScriptedModel,
  scriptedModel,
  startRequestRecorder,
  withOfflineModels,
} from '@rlm/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRlmMcpServer } from './rlm-mcp-server.js';
import { rlmQueryRunner } from './rlm-query-runner.js';

// A client connected to the RLM (a coding agent, perhaps fooled by a file it read) must not be
// able to send the operator's key or the run's prompts to a host of its choosing.

let recorder: RequestRecorder;

beforeEach(async () => {
  recorder = await startRequestRecorder();
});
afterEach(async () => {
  await recorder.close();
});

/** What the operator configured: how model ids become clients, and the run settings. */
interface Operator {
  resolveModel: RunnerModelResolver;
  settings: RunSettingsInput;
}

/** `rlm mcp` as an operator sets it up: their key in the environment, one configured model. */
function offlineOperator(): Operator {
  const env = { OPENAI_API_KEY: 'sk-operator-secret' };
  return {
    resolveModel: withOfflineModels((id: string) => resolveModel(id, { env })),
    settings: { model: 'testkit:needle-finder' },
  };
}

async function connect(allowedModels?: readonly string[], operator = offlineOperator()) {
  const runner = createRunner({ resolveModel: operator.resolveModel, isolation: 'inline' });
  const runQuery = rlmQueryRunner({
    runner,
    settings: operator.settings,
    ...(allowedModels === undefined ? {} : { allowedModels }),
  });
  const rlm = createRlmMcpServer({ runQuery, repl: { isolation: 'inline' } });
  const client = new Client({ name: 'agent', version: '1.0.0' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await rlm.server.connect(serverSide);
  await client.connect(clientSide);
  return {
    call: async (args: Record<string, unknown>) =>
      (await client.callTool({ name: 'rlm_query', arguments: args })) as CallToolResult,
    async [Symbol.asyncDispose]() {
      await client.close();
      await rlm.close();
    },
  };
}

const text = (result: CallToolResult) =>
  result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');

describe('rlm_query and the operator’s trust boundary', () => {
  it('refuses a model that names a base URL, and the URL receives nothing', async () => {
    await using session = await connect();
    const result = await session.call({
      query: 'What is the magic number?',
      context: 'The magic number is 7.',
      model: `openai-compatible/gpt@${recorder.url}`,
    });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('config.invalid');
    expect(text(result)).toContain('cannot name an endpoint');
    expect(text(result)).toContain('allowed: testkit:needle-finder');
    expect(recorder.hits).toEqual([]);
  });

  it('refuses a provider model the operator did not allow, naming the allowed ones', async () => {
    await using session = await connect(['testkit:needle-finder-grep']);
    const result = await session.call({ query: 'q', context: 'c', model: 'openai/gpt-5' });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('testkit:needle-finder, testkit:needle-finder-grep');
    expect(recorder.hits).toEqual([]);
  });

  it('refuses an escalation rung the operator did not allow, and sends it nothing', async () => {
    await using session = await connect(['testkit:needle-finder-grep']);
    const result = await session.call({
      query: 'q',
      context: 'c',
      escalate: ['testkit:needle-finder-grep', `openai-compatible/gpt@${recorder.url}`],
    });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('config.invalid');
    expect(text(result)).toContain('escalate[1]');
    expect(text(result)).toContain('allowed: testkit:needle-finder, testkit:needle-finder-grep');
    expect(recorder.hits).toEqual([]);
  });

  it('runs an allowed model the client chose', async () => {
    await using session = await connect(['testkit:needle-finder-grep']);
    const result = await session.call({
      query: 'What is the magic number?',
      context: 'filler\nThe magic number is 731.\nmore filler',
      model: 'testkit:needle-finder-grep',
    });
    expect(result.isError).toBeUndefined();
    expect(text(result)).toContain('731');
  });

  it('lets a client lower a limit but not raise it past the operator’s', async () => {
    await using session = await connect();
    const result = await session.call({
      query: 'What is the magic number?',
      context: 'The magic number is 9.',
      maxIterations: 1,
    });
    // One iteration is not enough for the policy to look and answer: the lowered cap held.
    expect(result.structuredContent).toMatchObject({ outcome: 'max_iterations' });
  });

  it('runs a failing child again on the allowed model the client named, after escalateAfterErrors', async () => {
    const repl = (code: string) => `Next step:\n\`\`\`repl\n${code}\n\`\`\``;
    const models: Record<string, ScriptedModel> = {
      root: scriptedModel(
        () => repl('const r = await rlm_query("solve it", { model: "cheap" });\nFINAL(r)'),
        { id: 'root' },
      ),
      cheap: scriptedModel(() => repl('throw new Error("stuck")'), { id: 'cheap' }),
      strong: scriptedModel(() => repl('FINAL("42")'), { id: 'strong' }),
    };
    await using session = await connect(['strong'], {
      resolveModel: (id) => {
        const model = models[id];
        if (model === undefined) throw new Error(`no model ${id}`);
        return model;
      },
      // The child runs on the cheap sub-model, which is off the ladder the client names.
      settings: { model: 'root', subModel: 'cheap', limits: { maxDepth: 2 } },
    });
    const result = await session.call({
      query: 'q',
      context: 'c',
      escalate: ['strong'],
      escalateAfterErrors: 2,
    });
    expect(result.structuredContent).toMatchObject({ answer: '42', outcome: 'completed' });
    // Two failed turns on the cheap model, not the five that stop any run.
    expect(models['cheap']?.requests).toHaveLength(2);
    expect(models['strong']?.requests.length).toBeGreaterThan(0);
  });
});
