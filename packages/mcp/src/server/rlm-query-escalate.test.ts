import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createRunner } from '@rlm/executor';
import type { ModelRequest } from '@rlm/protocol';
import { type ScriptedModel, scriptedModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { createRlmMcpServer } from './rlm-mcp-server.js';
import { rlmQueryRunner } from './rlm-query-runner.js';

const repl = (code: string) => `Next step:\n\`\`\`repl\n${code}\n\`\`\``;

/** The operator's models: a root that delegates, a cheap worker that always fails, a strong one. */
function models() {
  const root = scriptedModel(
    () => repl('const r = await rlm_query("solve it", { model: "cheap" });\nFINAL(r)'),
    {
      id: 'root',
    },
  );
  const cheap = scriptedModel(() => repl('throw new Error("stuck")'), {
    id: 'cheap',
    maxOutputTokens: 40,
  });
  const strong = scriptedModel((_request: ModelRequest) => repl('FINAL("42")'), {
    id: 'strong',
    maxOutputTokens: 40,
  });
  return { root, cheap, strong } as Record<string, ScriptedModel>;
}

async function connect(byId: Record<string, ScriptedModel>, allowedModels: readonly string[]) {
  const runner = createRunner({
    resolveModel: (id) => {
      const model = byId[id];
      if (model === undefined) throw new Error(`no model ${id}`);
      return model;
    },
    isolation: 'inline',
  });
  const runQuery = rlmQueryRunner({
    runner,
    // The child runs on the cheap sub-model, which is off any ladder the client names.
    settings: { model: 'root', subModel: 'cheap', limits: { maxDepth: 2 } },
    allowedModels,
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

describe('rlm_query with an escalation ladder', () => {
  it('runs a failing child again on the allowed model the client named, after escalateAfterErrors', async () => {
    const byId = models();
    await using session = await connect(byId, ['strong']);
    const result = await session.call({
      query: 'q',
      context: 'c',
      escalate: ['strong'],
      escalateAfterErrors: 2,
    });
    expect(result.structuredContent).toMatchObject({ answer: '42', outcome: 'completed' });
    // Two failed turns on the cheap model, not the five that stop any run.
    expect(byId.cheap?.requests).toHaveLength(2);
    expect(byId.strong?.requests.length).toBeGreaterThan(0);
  });
});
