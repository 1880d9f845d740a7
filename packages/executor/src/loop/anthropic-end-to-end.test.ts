import { type FakeModelRequest, startFakeAnthropic } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { anthropic } from '../index.js';
import { eventLog, repl, testRLM } from '../testing/rlm-test-kit.js';

function turnOf(request: FakeModelRequest): number {
  return request.messages.filter((message) => message.role === 'assistant').length;
}

describe('the RLM over the Anthropic client', () => {
  it('runs the loop through the official SDK with prompt caching across iterations', async () => {
    await using server = await startFakeAnthropic({
      script: (request) =>
        turnOf(request) < 4
          ? repl(
              `const step${turnOf(request)} = context.length + ${turnOf(request)}\nprint(step${turnOf(request)})`,
            )
          : 'FINAL_VAR(step3)',
    });
    const model = anthropic({
      model: 'claude-sonnet-5-5',
      apiKey: 'sk-test-key',
      baseURL: server.url,
    });
    const { events, onEvent } = eventLog();
    const result = await testRLM({ model, onEvent }).completion('x'.repeat(5000), {
      query: 'length?',
    });
    expect(result).toMatchObject({ status: 'completed', answer: '5003', iterations: 5 });
    const reads = events.flatMap((event) =>
      event.type === 'model-call-end' ? [event.usage?.cacheReadTokens ?? 0] : [],
    );
    expect(reads[0]).toBe(0);
    expect(reads.slice(2).every((tokens) => tokens > 0)).toBe(true);
    expect(reads[4]).toBeGreaterThan(reads[2]!);
    const usage = result.usage.models['anthropic/claude-sonnet-5-5'];
    expect(usage).toMatchObject({ calls: 5 });
    expect(usage?.cacheReadTokens).toBeGreaterThan(0);
    expect(usage?.costUsd).toBeGreaterThan(0);
    expect(server.requests.length).toBe(5);
  });
});
