import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { startFakeAnthropic } from './fake-anthropic.js';

const base = {
  model: 'claude-sonnet-5-5',
  max_tokens: 4_000,
  messages: [{ role: 'user' as const, content: 'hi' }],
};

function client(url: string) {
  return new Anthropic({ apiKey: 'sk-test', baseURL: url, maxRetries: 0 });
}

async function status(promise: Promise<unknown>): Promise<{ status: unknown; message: string }> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught as { status?: unknown; message: string },
  );
  return { status: error?.status, message: error?.message ?? '' };
}

describe('startFakeAnthropic: thinking, effort, refusals and empty messages', () => {
  it('streams a signed thinking block before the text when thinking is on, counted in output tokens', async () => {
    await using server = await startFakeAnthropic({
      script: { text: 'The answer.', thinking: 'Let me think this through carefully.' },
    });
    const message = await client(server.url)
      .messages.stream({ ...base, thinking: { type: 'enabled', budget_tokens: 1_024 } })
      .finalMessage();
    expect(message.content.map((block) => block.type)).toEqual(['thinking', 'text']);
    expect(message.content[0]).toMatchObject({
      thinking: 'Let me think this through carefully.',
      signature: expect.stringMatching(/^sig_/),
    });
    // ceil(11 / 4) text tokens + ceil(36 / 4) thinking tokens.
    expect(message.usage.output_tokens).toBe(3 + 9);
    expect(message.usage.output_tokens_details).toEqual({ thinking_tokens: 9 });
  });

  it('sends no thinking when the request did not turn it on', async () => {
    await using server = await startFakeAnthropic({
      script: { text: 'Plain.', thinking: 'hidden' },
    });
    const message = await client(server.url).messages.create(base);
    expect(message.content.map((block) => block.type)).toEqual(['text']);
  });

  it('refuses a thinking budget under 1024 or not under max_tokens, and an unknown effort', async () => {
    await using server = await startFakeAnthropic();
    const api = client(server.url);
    const low = await status(
      api.messages.create({ ...base, thinking: { type: 'enabled', budget_tokens: 500 } }),
    );
    expect(low).toMatchObject({ status: 400, message: expect.stringContaining('budget_tokens') });
    const over = await status(
      api.messages.create({ ...base, thinking: { type: 'enabled', budget_tokens: 4_000 } }),
    );
    expect(over).toMatchObject({ status: 400, message: expect.stringContaining('max_tokens') });
    const effort = await status(
      api.messages.create({
        ...base,
        output_config: { effort: 'extreme' as 'high' },
      }),
    );
    expect(effort).toMatchObject({ status: 400, message: expect.stringContaining('effort') });
    const fine = await api.messages.create({
      ...base,
      thinking: { type: 'adaptive' },
      output_config: { effort: 'low' },
    });
    expect(fine.stop_reason).toBe('end_turn');
  });

  it('stops with refusal and its stop_details', async () => {
    await using server = await startFakeAnthropic({
      script: { refusal: { category: 'cyber', explanation: 'Not this.' } },
    });
    const message = await client(server.url).messages.stream(base).finalMessage();
    expect(message.stop_reason).toBe('refusal');
    expect(message.stop_details).toEqual({
      type: 'refusal',
      category: 'cyber',
      explanation: 'Not this.',
    });
  });

  it('refuses an empty or blank message that is not the final assistant turn', async () => {
    await using server = await startFakeAnthropic();
    const api = client(server.url);
    for (const content of ['', '   ', [{ type: 'text' as const, text: ' ' }]]) {
      const refused = await status(
        api.messages.create({
          ...base,
          messages: [
            { role: 'user', content: 'q' },
            { role: 'assistant', content },
            { role: 'user', content: 'go on' },
          ],
        }),
      );
      expect(refused).toMatchObject({
        status: 400,
        message: expect.stringContaining('messages.1: all messages must have non-empty content'),
      });
    }
  });
});
