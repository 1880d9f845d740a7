import { type FakeAnthropicServer, startFakeAnthropic } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { eventLog, repl, testRLM } from '../testing/rlm-test-kit.js';
import { anthropic } from './anthropic-model.js';

const ask = { messages: [{ role: 'user' as const, content: 'hi' }] };

function clientFor(
  server: FakeAnthropicServer,
  options: Partial<Parameters<typeof anthropic>[0]> = {},
) {
  return anthropic({
    model: 'claude-sonnet-5-5',
    apiKey: 'sk-test',
    baseURL: server.url,
    maxTokens: 2_000,
    ...options,
  });
}

function bodyOf(server: FakeAnthropicServer, index: number): Record<string, unknown> {
  return server.requests[index]?.body as Record<string, unknown>;
}

describe('anthropic thinking and effort', () => {
  it('sends the thinking budget on top of maxTokens, and effort, and counts thinking as output', async () => {
    await using server = await startFakeAnthropic({
      script: { text: 'Answer.', thinking: 'x'.repeat(400) },
    });
    const model = clientFor(server, {
      thinking: { type: 'enabled', budgetTokens: 1_500 },
      effort: 'high',
      pricing: { inputPerMTok: 0, outputPerMTok: 1_000_000 },
    });
    // Budgets reserve the answer's room and the whole thinking budget.
    expect(model.maxOutputTokens).toBe(3_500);
    const response = await model.complete(ask);
    expect(bodyOf(server, 0)).toMatchObject({
      max_tokens: 3_500,
      thinking: { type: 'enabled', budget_tokens: 1_500 },
      output_config: { effort: 'high' },
    });
    // The thinking is not part of the answer, but its 100 tokens are billed as output.
    expect(response.text).toBe('Answer.');
    expect(response.usage.outputTokens).toBe(2 + 100);
    expect(response.costUsd).toBeCloseTo(102, 6);
  });

  it('sends adaptive thinking within maxTokens', async () => {
    await using server = await startFakeAnthropic({ script: { text: 'ok', thinking: 'hmm' } });
    const model = clientFor(server, { thinking: { type: 'adaptive' } });
    expect(model.maxOutputTokens).toBe(2_000);
    await model.complete(ask);
    expect(bodyOf(server, 0)).toMatchObject({ max_tokens: 2_000, thinking: { type: 'adaptive' } });
    expect(bodyOf(server, 0)).not.toHaveProperty('output_config');
  });

  it('refuses a thinking budget under 1024 or an unknown effort at creation, naming the field', () => {
    const options = { model: 'claude-sonnet-5-5', apiKey: 'sk' };
    expect(() =>
      anthropic({ ...options, thinking: { type: 'enabled', budgetTokens: 100 } }),
    ).toThrow(
      expect.objectContaining({
        code: 'config.invalid',
        message: expect.stringContaining('thinking.budgetTokens'),
      }),
    );
    expect(() => anthropic({ ...options, effort: 'huge' as 'high' })).toThrow(
      expect.objectContaining({
        code: 'config.invalid',
        message: expect.stringContaining('effort'),
      }),
    );
  });

  it('charges a call aborted while it thinks for the thinking streamed so far', async () => {
    await using server = await startFakeAnthropic({
      script: { text: 'late', thinking: 't'.repeat(4_000), stream: { eventDelayMs: 150 } },
    });
    const seen: number[] = [];
    const controller = new AbortController();
    const pending = clientFor(server, { thinking: { type: 'adaptive' } }).complete({
      ...ask,
      signal: controller.signal,
      onUsage: (usage) => {
        seen.push(usage.outputTokens);
        if (usage.outputTokens >= 250) controller.abort();
      },
    });
    await expect(pending).rejects.toMatchObject({ code: 'model.aborted' });
    expect(Math.max(...seen)).toBeGreaterThanOrEqual(250);
  });
});

describe('anthropic pause_turn', () => {
  it('continues a paused turn by sending the paused response back, thinking signature included', async () => {
    await using server = await startFakeAnthropic({
      script: [
        { text: 'First half, ', thinking: 'plan', stopReason: 'pause_turn' },
        'second half.',
      ],
    });
    const model = clientFor(server, {
      thinking: { type: 'adaptive' },
      pricing: { inputPerMTok: 1, outputPerMTok: 1 },
    });
    const response = await model.complete(ask);
    expect(response.text).toBe('First half, second half.');
    expect(response.stopReason).toBe('end_turn');
    expect(server.requests).toHaveLength(2);
    const messages = bodyOf(server, 1)['messages'] as { role: string; content: unknown }[];
    expect(messages.at(-1)).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'plan', signature: 'sig_fake_4' },
        { type: 'text', text: 'First half, ' },
      ],
    });
    expect(messages).toHaveLength((bodyOf(server, 0)['messages'] as unknown[]).length + 1);
    // Both requests are billed: 3 text + 1 thinking tokens, then 3 text tokens.
    expect(response.usage.outputTokens).toBe(7);
  });

  it('ends a turn still paused after maxPauseContinuations as cut (max_tokens)', async () => {
    await using server = await startFakeAnthropic({
      script: { text: 'more…', stopReason: 'pause_turn' },
    });
    const response = await clientFor(server, { maxPauseContinuations: 2 }).complete(ask);
    expect(server.requests).toHaveLength(3);
    expect(response).toMatchObject({ text: 'more…more…more…', stopReason: 'max_tokens' });
  });

  it('keeps a paused turn within the output cap budgets reserved, and stops when it is spent', async () => {
    await using server = await startFakeAnthropic({
      script: [
        { text: 'a', stopReason: 'pause_turn', usage: { outputTokens: 1_500 } },
        { text: 'b', stopReason: 'pause_turn', usage: { outputTokens: 500 } },
        'never asked',
      ],
    });
    const response = await clientFor(server).complete(ask);
    expect(server.requests.map((request) => bodyOf(server, request.index)['max_tokens'])).toEqual([
      2_000, 500,
    ]);
    expect(response).toMatchObject({ text: 'ab', stopReason: 'max_tokens' });
    expect(response.usage.outputTokens).toBe(2_000);
  });

  it('shrinks an enabled thinking budget to fit a continuation, and stops below the smallest', async () => {
    await using server = await startFakeAnthropic({
      script: [
        { text: 'a', stopReason: 'pause_turn', usage: { outputTokens: 1_000 } },
        { text: 'b', stopReason: 'pause_turn', usage: { outputTokens: 1_400 } },
        { text: 'c', stopReason: 'pause_turn', usage: { outputTokens: 100 } },
        'never asked',
      ],
    });
    const model = clientFor(server, { thinking: { type: 'enabled', budgetTokens: 1_500 } });
    const response = await model.complete(ask);
    const sent = server.requests.map((request) => {
      const body = bodyOf(server, request.index);
      return [body['max_tokens'], (body['thinking'] as { budget_tokens: number }).budget_tokens];
    });
    // 3 500 reserved; 2 500 left after the first pause, 1 100 after the second, then 1 000:
    // too little for the smallest thinking budget (1 024), so the turn ends there, cut.
    expect(sent).toEqual([
      [3_500, 1_500],
      [2_500, 1_500],
      [1_100, 1_099],
    ]);
    expect(server.requests.map((request) => request.status)).toEqual([200, 200, 200]);
    expect(response).toMatchObject({ text: 'abc', stopReason: 'max_tokens' });
    expect(response.usage.outputTokens).toBe(2_500);
  });
});

describe('anthropic and empty assistant turns', () => {
  it('never sends an empty assistant message back, so a turn with no text does not break the run', async () => {
    await using server = await startFakeAnthropic({
      script: (request) => {
        const assistants = request.messages.filter((message) => message.role === 'assistant');
        if (request.index === 0) return { text: '', thinking: 'thinking only, no text' };
        if (request.index === 1) return repl('print(context.length)');
        return assistants.length >= 1 ? 'FINAL(done)' : 'FINAL(lost)';
      },
    });
    const model = clientFor(server, { thinking: { type: 'enabled', budgetTokens: 1_024 } });
    const { events, onEvent } = eventLog();
    const result = await testRLM({ model, onEvent }).completion('some context');
    expect(result).toMatchObject({ status: 'completed', answer: 'done' });
    // The server refuses empty messages (400): every request was accepted.
    expect(server.requests.map((request) => request.status)).toEqual([200, 200, 200]);
    const second = bodyOf(server, 1)['messages'] as { role: string; content: unknown }[];
    expect(second.some((message) => message.role === 'assistant')).toBe(false);
    expect(events.filter((event) => event.type === 'error')).toEqual([]);
  });
});
