import type { LanguageModel } from '@rlm/protocol';
import { scriptedModel } from '@rlm/testkit';
import { parseTrajectory, recordedExchanges } from '@rlm/trace';
import { describe, expect, it } from 'vitest';
import { createExecutorEngine } from './executor-engine.js';
import { readSse } from './test-support/read-sse.js';
import { startTestServer, type TestServer } from './test-support/start-test-server.js';

function engineWith(model: LanguageModel) {
  return createExecutorEngine({ resolveModel: () => model, isolation: 'inline' });
}

async function post(server: TestServer, path: string, body: Record<string, unknown>) {
  const response = await server.request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('executor engine behind the server', () => {
  it('runs model code in the REPL over the run context', async () => {
    const model = scriptedModel([
      '```repl\nconst total = context.reduce((sum, n) => sum + n, 0);\nprint(total)\n```',
      'FINAL_VAR(total)',
    ]);
    await using server = await startTestServer({ engine: engineWith(model) });
    const created = await post(server, '/v1/runs', {
      query: 'Sum the numbers',
      context: [1, 2, 3, 4],
    });
    expect(created.status).toBe(202);
    const events = await server.request(`/v1/runs/${created.body['id']}/events`);
    const types: string[] = [];
    for await (const message of readSse(events)) types.push(message.event);
    expect(types).toContain('block-end');
    const run = await (await server.request(`/v1/runs/${created.body['id']}`)).json();
    expect(run).toMatchObject({ status: 'completed', answer: '10' });
    const trajectory = await (
      await server.request(`/v1/runs/${created.body['id']}/trajectory`)
    ).text();
    const kinds = parseTrajectory(trajectory).map((record) => record.kind);
    expect(kinds[0]).toBe('header');
    expect(kinds).toContain('model-exchange');
    expect(trajectory).not.toContain('[1,2,3,4]');
  });

  it('lets an agent rewrite a mutable layer from its REPL, once per turn', async () => {
    const model = scriptedModel([
      [
        '```repl',
        'const first = await update_prompt_layer(8, "Prefer answers of one sentence.");',
        'const second = await update_prompt_layer(9, "A second edit in the same turn.");',
        'print(JSON.stringify({ first, second }))',
        '```',
      ].join('\n'),
      'FINAL(noted)',
    ]);
    await using server = await startTestServer({ engine: engineWith(model) });
    const agent = await post(server, '/v1/agents', { identityTag: 'Scribe' });
    const turn = await post(server, `/v1/agents/${agent.body['id']}/messages`, {
      sender: 'dana',
      body: 'Be brief from now on.',
    });
    expect(turn.body).toMatchObject({
      reply: 'noted',
      status: 'completed',
      layerUpdate: { layerId: 8, version: 2 },
    });
    const output = (model.requests[1]?.messages ?? []).map((message) => message.content).join('\n');
    expect(output).toContain('"first":{"ok":true,"layerId":8,"version":2}');
    expect(output).toContain('at most once per turn');
    const layers = (await (
      await server.request(`/v1/agents/${agent.body['id']}/prompt-layers`)
    ).json()) as {
      data: { id: number; version: number | null; updatedBy: string | null }[];
    };
    expect(layers.data.find((layer) => layer.id === 8)).toMatchObject({
      version: 2,
      updatedBy: expect.stringMatching(
        new RegExp(`^agent:${agent.body['id']} run:run_[0-9a-f]+ sender:"dana"$`),
      ),
    });
    expect(layers.data.find((layer) => layer.id === 9)?.version).toBe(1);
    expect(model.requests[0]?.system).toContain('Scribe');
  });

  it("records in an agent turn's trajectory the exact system prompt the model received", async () => {
    const model = scriptedModel([
      '```repl\nconst n = await llm_query("sub")\n```',
      'FINAL(done)',
      'sub',
    ]);
    await using server = await startTestServer({ engine: engineWith(model) });
    const agent = await post(server, '/v1/agents', { identityTag: 'Scribe' });
    const turn = await post(server, `/v1/agents/${agent.body['id']}/messages`, {
      sender: 'dana',
      body: 'Hello there.',
    });
    const trajectory = await (
      await server.request(`/v1/runs/${turn.body['runId']}/trajectory`)
    ).text();
    const recorded = recordedExchanges(parseTrajectory(trajectory));
    // Root turns carry the layered prompt before the REPL instructions; llm_query has none.
    const sent = model.requests.map((request) => request.system);
    expect(recorded.map((exchange) => exchange.system)).toEqual(sent);
    const rootPrompt = sent[0] ?? '';
    expect(rootPrompt).toContain('Scribe');
    expect(rootPrompt).toContain('```repl');
    expect(sent.filter((system) => system === undefined)).toHaveLength(1);
  });
});
