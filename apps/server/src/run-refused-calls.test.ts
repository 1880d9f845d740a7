import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { createExecutorEngine } from './executor-engine.js';
import { readSse } from './test-support/read-sse.js';
import { startTestServer } from './test-support/start-test-server.js';

const fence = (code: string) => `\`\`\`repl\n${code}\n\`\`\``;

describe('the run view reports refused calls', () => {
  it('shows refusedCalls on a run that completed while a child’s budget refused a sub-call', async () => {
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
    const engine = createExecutorEngine({ resolveModel: () => model, isolation: 'inline' });
    await using server = await startTestServer({ engine });
    const created = await server.request('/v1/runs', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'q', context: 'c', config: { maxDepth: 2, maxSubcalls: 20 } }),
    });
    expect(created.status).toBe(202);
    const { id } = (await created.json()) as { id: string };
    for await (const message of readSse(await server.request(`/v1/runs/${id}/events`))) {
      if (message.event === 'end') break;
    }
    const run = await (await server.request(`/v1/runs/${id}`)).json();
    expect(run).toMatchObject({ status: 'completed', refusedCalls: 1 });
  });
});
