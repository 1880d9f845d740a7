import { costOfCall, type TokenUsage } from '@rlm/protocol';
import { startFakeAnthropic } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { anthropic } from './anthropic-model.js';

const ask = { messages: [{ role: 'user' as const, content: 'hi' }] };

describe('a stream retried after it failed mid-way', () => {
  it('counts the failed attempt’s billed usage in the call’s usage and cost', async () => {
    await using server = await startFakeAnthropic({
      script: [
        { text: 'lost', stream: { errorAfterChunks: 0 }, usage: { inputTokens: 500 } },
        { text: 'second try', usage: { inputTokens: 700, outputTokens: 3 } },
      ],
    });
    const reported: TokenUsage[] = [];
    const model = anthropic({
      model: 'claude-sonnet-5-5',
      apiKey: 'sk-test',
      baseURL: server.url,
    });
    const response = await model.complete({ ...ask, onUsage: (usage) => reported.push(usage) });
    expect(server.requests).toHaveLength(2);
    expect(response).toMatchObject({ text: 'second try' });
    // The failed attempt's message_start reported 500 input tokens and 1 output token.
    expect(response.usage).toMatchObject({ inputTokens: 1_200, outputTokens: 4 });
    // What the call is charged is the sum of what the provider reported for both attempts.
    expect(reported.at(-1)).toMatchObject({ inputTokens: 1_200 });
    const price = model.pricing!;
    const none = { cacheReadTokens: 0, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0 };
    const expected =
      costOfCall(price, { ...none, inputTokens: 500, outputTokens: 1 }) +
      costOfCall(price, { ...none, inputTokens: 700, outputTokens: 3 });
    expect(response.costUsd).toBeCloseTo(expected, 10);
  });
});
