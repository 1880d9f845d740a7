import {
  APICallError,
  type LanguageModelV2,
  type LanguageModelV2StreamPart,
  type LanguageModelV3StreamPart,
  LoadAPIKeyError,
} from '@ai-sdk/provider';
import { RlmError } from '@rlm/protocol';
import { convertArrayToReadableStream, MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { fromAISDK, type LanguageModelV4Like } from './ai-sdk-model.js';

const ask = { messages: [{ role: 'user' as const, content: 'hi there' }] };

function finish(overrides: Partial<Extract<LanguageModelV3StreamPart, { type: 'finish' }>> = {}) {
  return {
    type: 'finish' as const,
    finishReason: { unified: 'stop' as const, raw: 'stop' },
    usage: {
      inputTokens: { total: 1_200, noCache: 200, cacheRead: 900, cacheWrite: 100 },
      outputTokens: { total: 50, text: 30, reasoning: 20 },
    },
    ...overrides,
  };
}

function textParts(...deltas: string[]): LanguageModelV3StreamPart[] {
  return [
    { type: 'stream-start', warnings: [] },
    { type: 'response-metadata', id: 'resp_1', modelId: 'mock-model-id' },
    { type: 'text-start', id: 't' },
    ...deltas.map((delta) => ({ type: 'text-delta' as const, id: 't', delta })),
    { type: 'text-end', id: 't' },
  ];
}

function mockModel(parts: LanguageModelV3StreamPart[]) {
  return new MockLanguageModelV3({
    provider: 'mockai.chat',
    modelId: 'mock-1',
    doStream: async () => ({ stream: convertArrayToReadableStream(parts) }),
  });
}

function apiError(
  statusCode: number | undefined,
  extra: Partial<{ body: string; headers: Record<string, string> }> = {},
) {
  return new APICallError({
    message: `status ${statusCode}`,
    url: 'https://example.invalid/v1/chat',
    requestBodyValues: {},
    statusCode,
    responseHeaders: extra.headers ?? {},
    responseBody: extra.body ?? '',
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

describe('fromAISDK', () => {
  it('streams the text and reports usage with cache reads and writes, and the cost', async () => {
    const mock = mockModel([...textParts('Hel', 'lo'), finish()]);
    const model = fromAISDK(mock, { pricing: { inputPerMTok: 1, outputPerMTok: 10 } });
    expect(model.id).toBe('mockai/mock-1');
    const response = await model.complete(ask);
    expect(response).toMatchObject({
      text: 'Hello',
      stopReason: 'end_turn',
      model: 'mockai/mock-1',
      requestId: 'resp_1',
      usage: { inputTokens: 200, outputTokens: 50, cacheReadTokens: 900, cacheWriteTokens: 100 },
    });
    // 200 × 1 + 50 × 10 + 900 × 0.1 + 100 × 1.25, per million.
    expect(response.costUsd).toBeCloseTo((200 + 500 + 90 + 125) / 1e6, 12);
  });

  it('sends the system prompt, the conversation, the output cap and stop sequences', async () => {
    const mock = mockModel([...textParts('ok'), finish()]);
    const model = fromAISDK(mock, { maxTokens: 4_096, providerOptions: { mockai: { x: 1 } } });
    await model.complete({
      system: 'be brief',
      messages: [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: 'a' },
        { role: 'user', content: 'q2' },
      ],
      stop: ['END'],
    });
    const call = mock.doStreamCalls[0];
    expect(call?.prompt).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: [{ type: 'text', text: 'q' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'a' }] },
      { role: 'user', content: [{ type: 'text', text: 'q2' }] },
    ]);
    expect(call).toMatchObject({
      maxOutputTokens: 4_096,
      stopSequences: ['END'],
      providerOptions: { mockai: { x: 1 } },
    });
    expect(call?.abortSignal).toBeInstanceOf(AbortSignal);
    expect(model.maxOutputTokens).toBe(4_096);
  });

  it('never sends a blank assistant turn, and joins the user turns around it', async () => {
    const mock = mockModel([...textParts('ok'), finish()]);
    await fromAISDK(mock).complete({
      messages: [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: '  \n' },
        { role: 'user', content: 'go on' },
      ],
    });
    expect(mock.doStreamCalls[0]?.prompt).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'q\n\ngo on' }] },
    ]);
  });

  it('maps finish reasons: length to max_tokens, content-filter to refusal', async () => {
    const cases = [
      ['length', 'max_tokens'],
      ['content-filter', 'refusal'],
      ['tool-calls', 'other'],
    ] as const;
    for (const [unified, expected] of cases) {
      const mock = mockModel([
        ...textParts('x'),
        finish({ finishReason: { unified, raw: unified } }),
      ]);
      expect((await fromAISDK(mock).complete(ask)).stopReason).toBe(expected);
    }
  });

  it('reads specification version 2 usage (outputs counted from the total when larger)', async () => {
    const parts: LanguageModelV2StreamPart[] = [
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'v2 says hi' },
      { type: 'text-end', id: 't' },
      {
        type: 'finish',
        finishReason: 'stop',
        // Google's V2 usage: outputTokens leaves out the 40 thinking tokens that totalTokens has.
        usage: { inputTokens: 1_000, outputTokens: 10, totalTokens: 1_050, cachedInputTokens: 600 },
      },
    ];
    const v2: LanguageModelV2 = {
      specificationVersion: 'v2',
      provider: 'legacy.chat',
      modelId: 'old-1',
      supportedUrls: {},
      doGenerate: () => Promise.reject(new Error('not used')),
      doStream: async () => ({ stream: convertArrayToReadableStream(parts) }),
    };
    const response = await fromAISDK(v2).complete(ask);
    expect(response).toMatchObject({
      text: 'v2 says hi',
      stopReason: 'end_turn',
      model: 'legacy/old-1',
      usage: { inputTokens: 400, cacheReadTokens: 600, outputTokens: 50, cacheWriteTokens: 0 },
    });
  });

  it('reads a specification version 4 model (ai 7), skipping the stream parts it does not know', async () => {
    const parts: unknown[] = [
      { type: 'stream-start', warnings: [] },
      { type: 'ping' },
      ...textParts('v4 says hi').slice(1),
      finish(),
    ];
    const calls: unknown[] = [];
    const v4: LanguageModelV4Like = {
      specificationVersion: 'v4',
      provider: 'next.chat',
      modelId: 'new-1',
      doStream: async (options) => {
        calls.push(options);
        return { stream: convertArrayToReadableStream(parts) };
      },
    };
    const response = await fromAISDK(v4, { maxTokens: 900 }).complete(ask);
    expect(response).toMatchObject({
      text: 'v4 says hi',
      model: 'next/new-1',
      stopReason: 'end_turn',
    });
    expect(response.usage).toMatchObject({ inputTokens: 200, cacheReadTokens: 900 });
    expect(calls[0]).toMatchObject({ maxOutputTokens: 900 });
  });

  it('refuses what is not an AI SDK model, naming the version it got', () => {
    const v9 = { specificationVersion: 'v9', provider: 'x', modelId: 'y', doStream() {} };
    expect(() => fromAISDK(v9 as unknown as LanguageModelV2)).toThrow(
      expect.objectContaining({ code: 'config.invalid', message: expect.stringContaining('"v9"') }),
    );
    expect(() => fromAISDK(mockModel([]), { maxTokens: -1 })).toThrow(
      expect.objectContaining({
        code: 'config.invalid',
        message: expect.stringContaining('maxTokens'),
      }),
    );
  });
});

describe('fromAISDK errors', () => {
  it('maps APICallError status codes to model codes and kinds', async () => {
    const cases = [
      [401, 'model.auth'],
      [404, 'model.not_found'],
      [400, 'model.bad_request'],
      [500, 'model.server_error'],
      [529, 'model.overloaded'],
    ] as const;
    for (const [status, code] of cases) {
      const mock = new MockLanguageModelV3({
        doStream: () => Promise.reject(apiError(status)),
      });
      const error = await failure(fromAISDK(mock, { maxRetries: 0 }).complete(ask));
      expect(error.code).toBe(code);
      expect(error.retryable).toBe(status >= 500);
    }
  });

  it('says model.context_too_long for a provider message about the context window', async () => {
    const mock = new MockLanguageModelV3({
      doStream: () =>
        Promise.reject(apiError(400, { body: '{"error":{"code":"context_length_exceeded"}}' })),
    });
    expect((await failure(fromAISDK(mock).complete(ask))).code).toBe('model.context_too_long');
  });

  it('retries a 429 after its retry-after and then succeeds', async () => {
    let calls = 0;
    const mock = new MockLanguageModelV3({
      doStream: async () => {
        calls += 1;
        if (calls === 1) throw apiError(429, { headers: { 'retry-after-ms': '1' } });
        return { stream: convertArrayToReadableStream([...textParts('after'), finish()]) };
      },
    });
    expect((await fromAISDK(mock).complete(ask)).text).toBe('after');
    expect(calls).toBe(2);
  });

  it('gives up after maxRetries with model.rate_limited and the delay the server asked for', async () => {
    let calls = 0;
    const mock = new MockLanguageModelV3({
      doStream: async () => {
        calls += 1;
        throw apiError(429, { headers: { 'retry-after-ms': '2' } });
      },
    });
    const error = await failure(fromAISDK(mock, { maxRetries: 2 }).complete(ask));
    expect(error).toMatchObject({ code: 'model.rate_limited', details: { retryAfterMs: 2 } });
    expect(calls).toBe(3);
  });

  it('never retries once text has streamed', async () => {
    let calls = 0;
    const mock = new MockLanguageModelV3({
      doStream: async () => {
        calls += 1;
        return {
          stream: convertArrayToReadableStream<LanguageModelV3StreamPart>([
            ...textParts('partial'),
            { type: 'error', error: apiError(503) },
          ]),
        };
      },
    });
    expect((await failure(fromAISDK(mock).complete(ask))).code).toBe('model.server_error');
    expect(calls).toBe(1);
  });

  it('maps an error part holding a provider error body by its type and message', async () => {
    const withError = (error: unknown) =>
      mockModel([
        { type: 'stream-start', warnings: [] },
        { type: 'error', error },
      ]);
    const overloaded = await failure(
      fromAISDK(withError({ type: 'overloaded_error', message: 'Overloaded' }), {
        maxRetries: 0,
      }).complete(ask),
    );
    expect(overloaded).toMatchObject({ code: 'model.overloaded', retryable: true });
    expect(overloaded.message).toContain('Overloaded');
    const tooLong = await failure(
      fromAISDK(
        withError({ error: { code: 'context_length_exceeded', message: 'too many tokens' } }),
      ).complete(ask),
    );
    expect(tooLong.code).toBe('model.context_too_long');
    const unknown = await failure(fromAISDK(withError('socket hang up')).complete(ask));
    expect(unknown).toMatchObject({ code: 'model.network' });
    expect(unknown.message).toContain('socket hang up');
  });

  it('maps a missing key (LoadAPIKeyError) to model.auth and a failed connection to model.network', async () => {
    const noKey = new MockLanguageModelV3({
      doStream: () => Promise.reject(new LoadAPIKeyError({ message: 'API key is missing' })),
    });
    expect((await failure(fromAISDK(noKey).complete(ask))).code).toBe('model.auth');
    const offline = new MockLanguageModelV3({
      doStream: () => Promise.reject(apiError(undefined)),
    });
    expect((await failure(fromAISDK(offline, { maxRetries: 0 }).complete(ask))).code).toBe(
      'model.network',
    );
  });

  it('says model.network when the stream ends without its finish part', async () => {
    const mock = mockModel(textParts('cut'));
    expect((await failure(fromAISDK(mock, { maxRetries: 0 }).complete(ask))).code).toBe(
      'model.network',
    );
  });
});

describe('fromAISDK cancellation', () => {
  it('aborts the provider call mid-stream and rejects with model.aborted', async () => {
    const controller = new AbortController();
    let providerSignal: AbortSignal | undefined;
    const mock = new MockLanguageModelV3({
      doStream: async ({ abortSignal }) => {
        providerSignal = abortSignal;
        const stream = new ReadableStream<LanguageModelV3StreamPart>({
          start(stream) {
            for (const part of textParts('first')) stream.enqueue(part);
            // Then nothing more: only the abort ends this call.
            abortSignal?.addEventListener('abort', () => stream.error(abortSignal.reason));
          },
        });
        return { stream };
      },
    });
    const pending = fromAISDK(mock).complete({
      ...ask,
      signal: controller.signal,
      onUsage: () => undefined,
    });
    setTimeout(() => controller.abort(new Error('user stop')), 20);
    expect((await failure(pending)).code).toBe('model.aborted');
    expect(providerSignal?.aborted).toBe(true);
  });

  it('stops waiting for a stalled stream after timeoutMs with model.timeout', async () => {
    const mock = new MockLanguageModelV3({
      doStream: async ({ abortSignal }) => ({
        stream: new ReadableStream<LanguageModelV3StreamPart>({
          start(stream) {
            abortSignal?.addEventListener('abort', () => stream.error(abortSignal.reason));
          },
        }),
      }),
    });
    const error = await failure(fromAISDK(mock, { timeoutMs: 50, maxRetries: 0 }).complete(ask));
    expect(error).toMatchObject({ code: 'model.timeout', details: { limitMs: 50 } });
  });
});
