import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type ScriptedModel, scriptedModel } from '@rlm/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createExecutorEngine } from './executor-engine.js';
import { runMetaSchema } from './run-meta.js';
import { startTestServer, type TestServer } from './test-support/start-test-server.js';

const repl = (code: string) => `Next step:\n\`\`\`repl\n${code}\n\`\`\``;

let models: Record<string, ScriptedModel>;
let server: TestServer;

beforeEach(async () => {
  models = {
    // The root hands the task to a child on the cheap sub-model and answers with its result.
    'openai/root': scriptedModel(
      () => repl('const r = await rlm_query("solve it", { model: "openai/cheap" });\nFINAL(r)'),
      { id: 'openai/root' },
    ),
    'openai/cheap': scriptedModel(() => repl('throw new Error("stuck")'), { id: 'openai/cheap' }),
    'openai/strong': scriptedModel(() => repl('FINAL("42")'), { id: 'openai/strong' }),
  };
  const resolveModel = (id: string) => {
    const model = models[id];
    if (model === undefined) throw new Error(`no model ${id}`);
    return model;
  };
  server = await startTestServer({
    engine: createExecutorEngine({ resolveModel, isolation: 'inline' }),
    config: {
      profiles: {
        default: { model: 'openai/root', subModel: 'openai/cheap', maxDepth: 2 },
        strong: { model: 'openai/strong' },
      },
    },
  });
});
afterEach(async () => {
  await server.close();
});

async function connect() {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${server.userKey}` } },
  });
  const client = new Client({ name: 'agent', version: '1.0.0' });
  await client.connect(transport);
  return {
    call: async (args: Record<string, unknown>) =>
      (await client.callTool({ name: 'rlm_query', arguments: args })) as CallToolResult,
    async [Symbol.asyncDispose]() {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    },
  };
}

const text = (result: CallToolResult) =>
  result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');

describe('/mcp rlm_query with an escalation ladder', () => {
  it('runs a failing child again on the model of the profile the client named, and keeps the ladder with the run', async () => {
    await using session = await connect();
    const result = await session.call({
      query: 'q',
      context: 'c',
      escalate: ['strong'],
      escalateAfterErrors: 2,
    });
    expect(result.structuredContent).toMatchObject({ answer: '42', outcome: 'completed' });
    // Two failed turns on the cheap model, not the five that stop any run.
    expect(models['openai/cheap']?.requests).toHaveLength(2);
    expect(models['openai/strong']?.requests.length).toBeGreaterThan(0);
    // Kept with the run, as model ids, so a restart or a resume escalates the same way.
    const { runId } = result.structuredContent as { runId: string };
    const stored = await server.services.store.runs.getRun(runId);
    expect(runMetaSchema.parse(stored?.config).escalation).toEqual({
      escalate: ['openai/strong'],
      escalateAfterErrors: 2,
    });
  });

  it('refuses a rung that is not a configured profile, naming the profiles, and runs nothing', async () => {
    await using session = await connect();
    const result = await session.call({
      query: 'q',
      context: 'c',
      escalate: ['openai/strong'],
    });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('config.invalid');
    expect(text(result)).toContain('escalate[0]: "openai/strong" is not a configured profile');
    expect(text(result)).toContain('allowed: default, strong');
    expect(models['openai/root']?.requests).toHaveLength(0);
  });
});
