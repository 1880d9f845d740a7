import { createOpenAI } from '@ai-sdk/openai';
import { RlmError } from '@rlm/protocol';
import { type FakeOpenAIServer, startFakeOpenAI } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { createRLM } from '../create-rlm.js';
import { fromAISDK } from './ai-sdk-model.js';
import { resolveModel } from './resolve-model.js';

// The real @ai-sdk/openai provider, over real HTTP, against the fake Chat Completions server.
function chatModel(server: FakeOpenAIServer, apiKey = 'sk-test') {
  return createOpenAI({ baseURL: server.url, apiKey }).chat('gpt-test-mini');
}

const ask = { messages: [{ role: 'user' as const, content: 'hi there' }] };

async function failure(promise: Promise<unknown>): Promise<RlmError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!RlmError.is(error)) throw new Error(`expected an RlmError, got ${String(error)}`);
  return error;
}

describe('fromAISDK with @ai-sdk/openai', () => {
  it('streams a reply with usage, cached tokens and cost', async () => {
    await using server = await startFakeOpenAI({
      script: {
        text: 'Hello from Chat Completions',
        usage: { inputTokens: 1_000, cacheReadTokens: 800, outputTokens: 7 },
      },
    });
    const model = fromAISDK(chatModel(server), {
      maxTokens: 2_000,
      pricing: { inputPerMTok: 2, outputPerMTok: 8, cacheReadPerMTok: 0.5 },
    });
    expect(model.id).toBe('openai/gpt-test-mini');
    const response = await model.complete({ system: 'sys', ...ask });
    expect(response).toMatchObject({
      text: 'Hello from Chat Completions',
      stopReason: 'end_turn',
      usage: { inputTokens: 200, cacheReadTokens: 800, outputTokens: 7, cacheWriteTokens: 0 },
    });
    expect(response.costUsd).toBeCloseTo((200 * 2 + 7 * 8 + 800 * 0.5) / 1e6, 12);
    const body = server.requests[0]?.body as Record<string, unknown>;
    expect(body).toMatchObject({
      model: 'gpt-test-mini',
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'hi there' },
      ],
    });
    expect(body['max_tokens'] ?? body['max_completion_tokens']).toBe(2_000);
  });

  it('maps the server 401 to model.auth and a 429 (after the retries) to model.rate_limited', async () => {
    await using server = await startFakeOpenAI({ apiKeys: ['sk-right'] });
    expect((await failure(fromAISDK(chatModel(server, 'sk-wrong')).complete(ask))).code).toBe(
      'model.auth',
    );
    server.script({ status: 429, headers: { 'retry-after-ms': '1' } });
    const limited = await failure(
      fromAISDK(chatModel(server, 'sk-right'), { maxRetries: 1 }).complete(ask),
    );
    expect(limited).toMatchObject({ code: 'model.rate_limited', retryable: true });
    // One refused key, then the first try and one retry.
    expect(server.requests).toHaveLength(3);
  });

  it('recovers from a 503 by retrying', async () => {
    await using server = await startFakeOpenAI({
      script: [{ status: 503, headers: { 'retry-after-ms': '1' } }, 'second time lucky'],
    });
    expect((await fromAISDK(chatModel(server)).complete(ask)).text).toBe('second time lucky');
  });

  it('maps a mid-stream error event by its type, retried only when no text came yet', async () => {
    await using server = await startFakeOpenAI({
      script: [
        {
          text: 'lost',
          stream: { errorAfterChunks: 0, errorType: 'server_error', errorMessage: 'boom' },
        },
        'after the error',
      ],
    });
    expect((await fromAISDK(chatModel(server)).complete(ask)).text).toBe('after the error');
    // After text the provider passes the error body on as it came: still mapped by its type,
    // and not retried (the text is gone).
    server.script({
      text: 'some text first',
      stream: {
        chunks: ['some ', 'text ', 'first'],
        errorAfterChunks: 1,
        errorType: 'rate_limit_exceeded',
        errorMessage: 'slow down',
      },
    });
    const before = server.requests.length;
    const limited = await failure(fromAISDK(chatModel(server)).complete(ask));
    expect(limited).toMatchObject({ code: 'model.rate_limited', retryable: true });
    expect(limited.message).toContain('slow down');
    expect(server.requests.length - before).toBe(1);
  });

  it('cancels the HTTP request when the signal aborts mid-stream', async () => {
    await using server = await startFakeOpenAI({
      script: { text: 'a slow reply in many parts', stream: { eventDelayMs: 200 } },
    });
    const controller = new AbortController();
    const pending = fromAISDK(chatModel(server)).complete({ ...ask, signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    expect((await failure(pending)).code).toBe('model.aborted');
  });

  it('is accepted by resolveModel and runs an RLM whose cost budget settles with real usage', async () => {
    await using server = await startFakeOpenAI({
      script: [
        { text: '```repl\nprint(context.length)\n```', usage: { outputTokens: 12 } },
        { text: 'FINAL(11)', usage: { outputTokens: 4 } },
      ],
    });
    const model = resolveModel(chatModel(server), {
      maxTokens: 1_000,
      pricing: { inputPerMTok: 1, outputPerMTok: 1 },
    });
    const rlm = createRLM({ model, budget: { maxCostUsd: 1 }, isolation: 'inline' });
    const result = await rlm.completion('hello world');
    expect(result).toMatchObject({ status: 'completed', answer: '11' });
    const usage = result.usage.models['openai/gpt-test-mini'];
    expect(usage?.calls).toBe(2);
    expect(usage?.outputTokens).toBe(16);
    expect(usage?.costUsd).toBeGreaterThan(0);
  });

  it('makes createRLM refuse a cost budget when no price was given', () => {
    const model = fromAISDK(createOpenAI({ apiKey: 'k' }).chat('gpt-test-mini'));
    expect(() => createRLM({ model, budget: { maxCostUsd: 1 } })).toThrow(
      expect.objectContaining({
        code: 'config.invalid',
        message: expect.stringContaining('openai/gpt-test-mini'),
      }),
    );
  });
});
