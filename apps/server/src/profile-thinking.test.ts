import { startFakeAnthropic } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { createExecutorEngine } from './executor-engine.js';
import { createProductionModelResolver } from './resolve-production-model.js';
import { parseServerConfig } from './server-config.js';
import { readSse } from './test-support/read-sse.js';
import { startTestServer } from './test-support/start-test-server.js';

describe('a profile with Anthropic thinking and effort', () => {
  it('sends them with every call of its anthropic/ model', async () => {
    await using anthropic = await startFakeAnthropic({
      script: (request) =>
        request.messages.some((message) => message.content.includes('REPL output'))
          ? 'FINAL_VAR(total)'
          : '```repl\nconst total = context.length\nprint(total)\n```',
    });
    const resolveModel = createProductionModelResolver({
      ANTHROPIC_API_KEY: 'sk-test',
      ANTHROPIC_BASE_URL: anthropic.url,
    });
    await using server = await startTestServer({
      engine: createExecutorEngine({ resolveModel, isolation: 'inline' }),
      config: {
        profiles: {
          default: { model: 'anthropic/claude-sonnet-5-5', thinkingBudget: 2_048, effort: 'low' },
        },
      },
    });
    const created = await server.request('/v1/runs', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'How long?', context: 'abcdef' }),
    });
    const { id } = (await created.json()) as { id: string };
    for await (const _ of readSse(await server.request(`/v1/runs/${id}/events`))) {
      // read to the end of the run
    }
    const run = (await (await server.request(`/v1/runs/${id}`)).json()) as Record<string, unknown>;
    expect(run).toMatchObject({ status: 'completed', answer: '6' });
    expect(anthropic.requests.length).toBeGreaterThanOrEqual(2);
    for (const request of anthropic.requests) {
      expect(request.body).toMatchObject({
        thinking: { type: 'enabled', budget_tokens: 2_048 },
        output_config: { effort: 'low' },
        max_tokens: 16_000 + 2_048,
      });
    }
  });

  it('is refused for a profile without an anthropic/ model, naming the field', () => {
    expect(() =>
      parseServerConfig({
        store: { kind: 'memory' },
        dataDir: '/tmp/unused',
        profiles: { default: { model: 'openai/gpt-5-mini', effort: 'high' } },
      }),
    ).toThrow(
      expect.objectContaining({
        code: 'config.invalid',
        message: expect.stringContaining('effort'),
      }),
    );
  });
});
