import type { ChatMessage } from '@rlm/protocol';
import { type FakeAnthropicServer, startFakeAnthropic } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { anthropic } from './anthropic-model.js';

const ask = (content: string) => ({ messages: [{ role: 'user' as const, content }] });

function clientFor(
  server: FakeAnthropicServer,
  options: Partial<Parameters<typeof anthropic>[0]> = {},
) {
  return anthropic({
    model: 'claude-sonnet-5-5',
    apiKey: 'sk-test',
    baseURL: server.url,
    ...options,
  });
}

describe('anthropic', () => {
  it('refuses a missing or empty key at creation with model.auth naming the variable and option', () => {
    for (const apiKey of ['', '  ', undefined]) {
      expect(() => anthropic({ model: 'claude-sonnet-5-5', apiKey: apiKey as string })).toThrow(
        expect.objectContaining({
          code: 'model.auth',
          details: { status: undefined, variable: 'ANTHROPIC_API_KEY', option: 'apiKey' },
          message: expect.stringMatching(/ANTHROPIC_API_KEY.*`apiKey`/),
        }),
      );
    }
  });

  it('tells budgets its output cap and its price', () => {
    const model = anthropic({ model: 'claude-sonnet-5-5', apiKey: 'sk', maxTokens: 1234 });
    expect(model.maxOutputTokens).toBe(1234);
    expect(model.pricing).toMatchObject({ inputPerMTok: 2, outputPerMTok: 10 });
    expect(anthropic({ model: 'claude-next-9', apiKey: 'sk' }).pricing).toBeUndefined();
  });

  it('streams a completion with usage, cost, request id and model id', async () => {
    await using server = await startFakeAnthropic({ script: 'Hello from Claude' });
    const model = clientFor(server, { promptCaching: 'off' });
    const response = await model.complete({ system: 'be brief', ...ask('hi there') });
    expect(response).toMatchObject({
      text: 'Hello from Claude',
      stopReason: 'end_turn',
      model: 'anthropic/claude-sonnet-5-5',
      usage: { inputTokens: 4, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });
    expect(response.requestId).toMatch(/^req_/);
    // 4 input tokens at $2/MTok + 5 output tokens at $10/MTok.
    expect(response.costUsd).toBeCloseTo((4 * 2 + 5 * 10) / 1e6, 12);
    expect(model.id).toBe('anthropic/claude-sonnet-5-5');
    expect(model.contextWindow).toBe(1_000_000);
    const body = server.requests[0]?.body as Record<string, unknown>;
    expect(body['stream']).toBe(true);
    expect(body).not.toHaveProperty('temperature');
    expect(server.requests[0]?.headers['authorization']).toBe('Bearer sk-test');
  });

  it('maps stop sequences and max_tokens to stop reasons', async () => {
    await using server = await startFakeAnthropic({ script: 'one two FINAL three' });
    const model = clientFor(server);
    await expect(model.complete({ ...ask('x'), stop: ['FINAL'] })).resolves.toMatchObject({
      text: 'one two ',
      stopReason: 'stop_sequence',
    });
    await expect(model.complete({ ...ask('x'), maxTokens: 1 })).resolves.toMatchObject({
      text: 'one ',
      stopReason: 'max_tokens',
    });
  });

  it('maps a context-window stop to max_tokens and a refusal to refusal with its details', async () => {
    await using server = await startFakeAnthropic({
      script: [
        { text: 'cut', stopReason: 'model_context_window_exceeded' },
        { text: '', refusal: { category: 'bio', explanation: 'No.' } },
      ],
    });
    const model = clientFor(server);
    await expect(model.complete(ask('x'))).resolves.toMatchObject({
      text: 'cut',
      stopReason: 'max_tokens',
    });
    await expect(model.complete(ask('x'))).resolves.toMatchObject({
      text: '',
      stopReason: 'refusal',
      refusal: { category: 'bio', explanation: 'No.' },
    });
  });

  it('reads a growing 6-turn conversation from cache with at most 4 breakpoints', async () => {
    await using server = await startFakeAnthropic({
      script: (request) => `reply ${request.index}`,
    });
    for (const promptCaching of ['auto', 'breakpoints'] as const) {
      server.clearCache();
      const model = clientFor(server, { promptCaching });
      const messages: ChatMessage[] = [{ role: 'user', content: 'x'.repeat(4_000) }];
      const reads: number[] = [];
      for (let turn = 1; turn <= 6; turn += 1) {
        const response = await model.complete({
          system: 'S'.repeat(4_400),
          messages: [...messages],
        });
        reads.push(response.usage.cacheReadTokens);
        // claude-sonnet-5-5: $2 input, $10 output, $2.50 5-minute write, $0.10 read per MTok.
        const { inputTokens, outputTokens, cacheWriteTokens, cacheReadTokens } = response.usage;
        const expected =
          (inputTokens * 2 + outputTokens * 10 + cacheWriteTokens * 2.5 + cacheReadTokens * 0.1) /
          1e6;
        expect(response.costUsd).toBeCloseTo(expected, 12);
        if (turn === 1) expect(response.usage.cacheWriteTokens).toBeGreaterThan(2_000);
        messages.push(
          { role: 'assistant', content: response.text },
          { role: 'user', content: `turn ${turn} ${'y'.repeat(500)}` },
        );
      }
      expect(reads[0]).toBe(0);
      for (let turn = 2; turn < 6; turn += 1)
        expect(reads[turn]!).toBeGreaterThan(reads[turn - 1]!);
      expect(reads[1]!).toBeGreaterThan(2_000);
    }
    for (const request of server.requests)
      expect(countMarkers(request.body)).toBeLessThanOrEqual(4);
    expect(server.requests.every((request) => request.status === 200)).toBe(true);
  });

  it('writes 1-hour cache entries when asked and prices them at the 1-hour rate', async () => {
    await using server = await startFakeAnthropic({ script: 'ok' });
    const model = clientFor(server, { cacheTtl: '1h' });
    const response = await model.complete({ system: 'S'.repeat(8_000), ...ask('q') });
    expect(response.usage.cacheWriteTokens).toBe(2_001);
    // 2,001 tokens written at the 1-hour price ($4/MTok) plus 1 output token at $10/MTok.
    expect(response.costUsd).toBeCloseTo((2_001 * 4 + 1 * 10) / 1e6, 12);
    expect(server.requests[0]?.rawBody).toContain('"ttl":"1h"');
  });

  it('sends no cache_control when caching is off', async () => {
    await using server = await startFakeAnthropic({ script: 'ok' });
    await clientFor(server, { promptCaching: 'off' }).complete({ system: 's', ...ask('q') });
    expect(server.requests[0]?.rawBody).not.toContain('cache_control');
  });
});

function countMarkers(body: unknown): number {
  return (JSON.stringify(body).match(/"cache_control"/g) ?? []).length;
}
