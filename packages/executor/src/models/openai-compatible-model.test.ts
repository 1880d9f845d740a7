import { type ChatMessage, RlmError } from '@rlm/protocol';
import { type FakeOpenAIServer, startFakeOpenAI } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { openaiCompatible } from './openai-compatible-model.js';

const ask = { messages: [{ role: 'user' as const, content: 'hi there' }] };

function clientFor(
  server: FakeOpenAIServer,
  options: Partial<Parameters<typeof openaiCompatible>[0]> = {},
) {
  return openaiCompatible({
    baseURL: server.url,
    model: 'qwen3-8b',
    apiKey: 'sk-test',
    ...options,
  });
}

async function failure(promise: Promise<unknown>): Promise<RlmError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!RlmError.is(error)) throw new Error(`expected an RlmError, got ${String(error)}`);
  return error;
}

describe('openaiCompatible', () => {
  it('refuses OpenAI and OpenRouter endpoints without a key at creation, with model.auth', () => {
    const cases = [
      ['https://api.openai.com/v1', 'OPENAI_API_KEY'],
      ['https://openrouter.ai/api/v1', 'OPENROUTER_API_KEY'],
    ] as const;
    for (const [baseURL, variable] of cases) {
      expect(() => openaiCompatible({ baseURL, model: 'm' })).toThrow(
        expect.objectContaining({
          code: 'model.auth',
          details: expect.objectContaining({ variable }),
        }),
      );
    }
    expect(() =>
      openaiCompatible({ baseURL: 'http://127.0.0.1:8000/v1', model: 'm' }),
    ).not.toThrow();
  });

  it('prices openai/ models from the dated table, snapshots included, and nothing else', () => {
    const known = openaiCompatible({
      baseURL: 'http://127.0.0.1:1/v1',
      model: 'gpt-5-mini-2025-08-07',
      provider: 'openai',
    });
    expect(known.pricing).toMatchObject({ inputPerMTok: 0.25, outputPerMTok: 2 });
    expect(known.contextWindow).toBe(400_000);
    expect(known.maxOutputTokens).toBe(16_000);
    const local = openaiCompatible({ baseURL: 'http://127.0.0.1:1/v1', model: 'gpt-5-mini' });
    expect(local.pricing).toBeUndefined();
    expect(local.reportsCost).toBeUndefined();
  });

  it('prefers the cost OpenRouter reports over a computed one', async () => {
    await using server = await startFakeOpenAI({
      script: () => ({ text: 'hi', usage: { cost: 0.0123 } }),
    });
    const model = clientFor(server, {
      provider: 'openrouter',
      pricing: { inputPerMTok: 1, outputPerMTok: 1 },
    });
    expect(model.reportsCost).toBe(true);
    await expect(model.complete(ask)).resolves.toMatchObject({ costUsd: 0.0123 });
  });

  it('streams a completion with usage, cost and request id', async () => {
    await using server = await startFakeOpenAI({ script: 'Hello from a local model' });
    const model = clientFor(server, {
      provider: 'vllm',
      pricing: { inputPerMTok: 1, outputPerMTok: 2 },
    });
    const response = await model.complete({ system: 'be brief', ...ask });
    expect(response).toMatchObject({
      text: 'Hello from a local model',
      stopReason: 'end_turn',
      model: 'vllm/qwen3-8b',
      usage: { inputTokens: 4, outputTokens: 6, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });
    expect(response.costUsd).toBeCloseTo((4 * 1 + 6 * 2) / 1e6, 12);
    expect(response.requestId).toMatch(/^req_/);
    expect(model.id).toBe('vllm/qwen3-8b');
    expect(server.requests[0]?.body).toMatchObject({
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi there' },
      ],
      max_tokens: 16_000,
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('uses max_completion_tokens for OpenAI itself and maps length and stop', async () => {
    await using server = await startFakeOpenAI({ script: 'alpha beta STOP gamma' });
    const model = clientFor(server, { provider: 'openai' });
    await expect(model.complete({ ...ask, maxTokens: 1 })).resolves.toMatchObject({
      text: 'alph',
      stopReason: 'max_tokens',
    });
    expect(server.requests[0]?.body).toMatchObject({ max_completion_tokens: 1 });
    await expect(model.complete({ ...ask, stop: ['STOP'] })).resolves.toMatchObject({
      text: 'alpha beta ',
      stopReason: 'end_turn',
    });
  });

  it('retries a 429 after retry-after-ms, then succeeds', async () => {
    await using server = await startFakeOpenAI({
      script: [{ status: 429, headers: { 'retry-after-ms': '60' } }, 'done'],
    });
    await expect(clientFor(server).complete(ask)).resolves.toMatchObject({ text: 'done' });
    expect(server.requests.map((request) => request.retryCount)).toEqual([0, 1]);
    const gap = server.requests[1]!.arrivedAt - server.requests[0]!.arrivedAt;
    expect(gap).toBeGreaterThanOrEqual(55);
    expect(gap).toBeLessThan(10_000);
  });

  it('reports 503 as model.server_error after retries', async () => {
    await using server = await startFakeOpenAI({
      script: { status: 503, headers: { 'retry-after-ms': '1' } },
    });
    const error = await failure(clientFor(server).complete(ask));
    expect(error).toMatchObject({
      code: 'model.server_error',
      retryable: true,
      details: { status: 503 },
    });
    expect(server.requests).toHaveLength(3);
  });

  it('retries once a stream that errors before text, never one that errors after', async () => {
    await using server = await startFakeOpenAI({
      script: [{ text: 'x', stream: { errorAfterChunks: 0 } }, 'second'],
    });
    await expect(clientFor(server).complete(ask)).resolves.toMatchObject({ text: 'second' });
    server.script({ text: 'abcdef', stream: { errorAfterChunks: 2 } });
    const error = await failure(clientFor(server).complete(ask));
    expect(error).toMatchObject({ code: 'model.server_error', retryable: true });
    expect(server.requests).toHaveLength(3);
  });

  it('reports a truncated stream and a mid-stream reset as model.network', async () => {
    await using server = await startFakeOpenAI({
      script: { text: 'abcdef', stream: { truncateAfterChunks: 2 } },
    });
    expect((await failure(clientFor(server).complete(ask))).code).toBe('model.network');
    server.script({ text: 'abcdef', stream: { resetAfterChunks: 2 } });
    expect((await failure(clientFor(server).complete(ask))).code).toBe('model.network');
    expect(server.requests).toHaveLength(2);
  });

  it('survives a socket reset before headers', async () => {
    await using server = await startFakeOpenAI({ script: [{ reset: true }, 'recovered'] });
    await expect(clientFor(server).complete(ask)).resolves.toMatchObject({ text: 'recovered' });
  });

  it('times out late headers and aborts on the signal', async () => {
    await using server = await startFakeOpenAI({ script: { text: 'late', delayMs: 10_000 } });
    const timeout = await failure(
      clientFor(server, { timeoutMs: 100, maxRetries: 0 }).complete(ask),
    );
    expect(timeout).toMatchObject({ code: 'model.timeout', details: { limitMs: 100 } });
    const controller = new AbortController();
    const pending = failure(clientFor(server).complete({ ...ask, signal: controller.signal }));
    setTimeout(() => controller.abort(), 50);
    expect((await pending).code).toBe('model.aborted');
  });

  it('maps a bad key, an unknown model and context-too-long across server flavors', async () => {
    await using openai = await startFakeOpenAI({
      apiKeys: ['sk-good'],
      models: { 'qwen3-8b': {} },
    });
    expect(await failure(clientFor(openai).complete(ask))).toMatchObject({ code: 'model.auth' });
    for (const flavor of ['openai', 'vllm', 'ollama', 'llamacpp'] as const) {
      await using server = await startFakeOpenAI({
        flavor,
        models: { small: { contextWindow: 5 } },
      });
      const unknown = await failure(clientFor(server, { model: 'missing' }).complete(ask));
      expect(unknown).toMatchObject({ code: 'model.not_found', details: { model: 'missing' } });
      const tooLong = await failure(
        clientFor(server, { model: 'small' }).complete({
          messages: [{ role: 'user', content: 'z'.repeat(200) }],
        }),
      );
      expect([flavor, tooLong.code]).toEqual([flavor, 'model.context_too_long']);
    }
  });

  it('reports cached prompt tokens as cache reads, outside inputTokens, and prices them', async () => {
    await using server = await startFakeOpenAI({
      script: { text: 'ok', usage: { inputTokens: 1000, cacheReadTokens: 800 } },
    });
    const pricing = { inputPerMTok: 1, outputPerMTok: 2, cacheReadPerMTok: 0.5 };
    const response = await clientFor(server, { provider: 'openai', pricing }).complete(ask);
    expect(response.usage).toEqual({
      inputTokens: 200,
      outputTokens: 1,
      cacheReadTokens: 800,
      cacheWriteTokens: 0,
    });
    expect(response.costUsd).toBeCloseTo((200 * 1 + 1 * 2 + 800 * 0.5) / 1e6, 12);
  });

  it('reads a growing 6-turn conversation from the prefix cache', async () => {
    await using server = await startFakeOpenAI({ script: (request) => `reply ${request.index}` });
    const model = clientFor(server, { provider: 'openai' });
    const messages: ChatMessage[] = [{ role: 'user', content: 'x'.repeat(6_000) }];
    const reads: number[] = [];
    for (let turn = 1; turn <= 6; turn += 1) {
      const response = await model.complete({ system: 'S'.repeat(2_000), messages: [...messages] });
      reads.push(response.usage.cacheReadTokens);
      messages.push(
        { role: 'assistant', content: response.text },
        { role: 'user', content: `turn ${turn} ${'y'.repeat(600)}` },
      );
    }
    expect(reads[0]).toBe(0);
    for (let turn = 2; turn < 6; turn += 1) expect(reads[turn]!).toBeGreaterThan(reads[turn - 1]!);
    expect(reads[1]!).toBeGreaterThanOrEqual(1_024);
  });
});
