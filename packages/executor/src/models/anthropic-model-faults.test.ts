import { RlmError } from '@rlm/protocol';
import { type FakeAnthropicServer, startFakeAnthropic } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
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

describe('anthropic failures', () => {
  it('retries a 429 after retry-after-ms, then succeeds', async () => {
    await using server = await startFakeAnthropic({
      script: [{ status: 429, headers: { 'retry-after-ms': '60' } }, 'done'],
    });
    await expect(clientFor(server).complete(ask)).resolves.toMatchObject({ text: 'done' });
    expect(server.requests.map((request) => request.retryCount)).toEqual([0, 1]);
    const gap = server.requests[1]!.arrivedAt - server.requests[0]!.arrivedAt;
    expect(gap).toBeGreaterThanOrEqual(55);
    expect(gap).toBeLessThan(10_000);
  });

  it('reports model.rate_limited with the retry hint once retries run out', async () => {
    await using server = await startFakeAnthropic({
      script: { status: 429, headers: { 'retry-after-ms': '5' } },
    });
    const error = await failure(clientFor(server, { maxRetries: 1 }).complete(ask));
    expect(error).toMatchObject({
      code: 'model.rate_limited',
      retryable: true,
      details: { retryAfterMs: 5, status: 429 },
    });
    expect(server.requests).toHaveLength(2);
  });

  it('reports 529 as model.overloaded after the SDK retries', async () => {
    await using server = await startFakeAnthropic({
      script: { status: 529, headers: { 'retry-after-ms': '1' } },
    });
    const error = await failure(clientFor(server).complete(ask));
    expect(error).toMatchObject({ code: 'model.overloaded', details: { status: 529 } });
    expect(server.requests).toHaveLength(3);
  });

  it('retries once when a stream errors before any text', async () => {
    await using server = await startFakeAnthropic({
      script: [{ text: 'lost', stream: { errorAfterChunks: 0 } }, 'second try'],
    });
    await expect(clientFor(server).complete(ask)).resolves.toMatchObject({ text: 'second try' });
    expect(server.requests).toHaveLength(2);
  });

  it('retries a stream failure only once', async () => {
    await using server = await startFakeAnthropic({
      script: { text: 'lost', stream: { errorAfterChunks: 0 } },
    });
    const error = await failure(clientFor(server).complete(ask));
    expect(error.code).toBe('model.overloaded');
    expect(server.requests).toHaveLength(2);
  });

  it('does not retry a stream that errors after text', async () => {
    await using server = await startFakeAnthropic({
      script: [{ text: 'partial answer', stream: { errorAfterChunks: 2 } }, 'unused'],
    });
    const error = await failure(clientFor(server).complete(ask));
    expect(error).toMatchObject({ code: 'model.overloaded', retryable: true });
    expect(server.requests).toHaveLength(1);
  });

  it('reports a truncated stream as model.network and retries it when no text came', async () => {
    await using server = await startFakeAnthropic({
      script: [
        { text: 'abcdef', stream: { truncateAfterChunks: 0 } },
        { text: 'abcdef', stream: { truncateAfterChunks: 2 } },
      ],
    });
    const error = await failure(clientFor(server).complete(ask));
    expect(error.code).toBe('model.network');
    expect(server.requests).toHaveLength(2);
  });

  it('survives a socket reset before headers and reports one after text as model.network', async () => {
    await using server = await startFakeAnthropic({ script: [{ reset: true }, 'recovered'] });
    await expect(clientFor(server).complete(ask)).resolves.toMatchObject({ text: 'recovered' });
    server.script({ text: 'abcdef', stream: { resetAfterChunks: 1 } });
    const error = await failure(clientFor(server).complete(ask));
    expect(error.code).toBe('model.network');
    expect(server.requests).toHaveLength(3);
  });

  it('times out when headers are late', async () => {
    await using server = await startFakeAnthropic({ script: { text: 'late', delayMs: 10_000 } });
    const error = await failure(clientFor(server, { timeoutMs: 100, maxRetries: 0 }).complete(ask));
    expect(error).toMatchObject({ code: 'model.timeout', details: { limitMs: 100 } });
  });

  it('times out a stream that stalls between events', async () => {
    await using server = await startFakeAnthropic({
      script: { text: 'abcd', stream: { eventDelayMs: 10_000 } },
    });
    const error = await failure(clientFor(server, { timeoutMs: 150, maxRetries: 0 }).complete(ask));
    expect(error.code).toBe('model.timeout');
  });

  it('aborts a waiting call with model.aborted', async () => {
    await using server = await startFakeAnthropic({ script: { text: 'late', delayMs: 10_000 } });
    const controller = new AbortController();
    const pending = failure(clientFor(server).complete({ ...ask, signal: controller.signal }));
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(new Error('user stop'));
    const error = await pending;
    expect(error.code).toBe('model.aborted');
    expect(server.requests).toHaveLength(1);
  });

  it('aborts mid-stream with model.aborted', async () => {
    await using server = await startFakeAnthropic({
      script: { text: 'abcdefgh', stream: { eventDelayMs: 200 } },
    });
    const controller = new AbortController();
    const pending = failure(clientFor(server).complete({ ...ask, signal: controller.signal }));
    setTimeout(() => controller.abort(), 100);
    expect((await pending).code).toBe('model.aborted');
  });

  it('maps a bad key, an unknown model and a too-long prompt', async () => {
    await using server = await startFakeAnthropic({
      apiKeys: ['sk-test'],
      models: { 'claude-small': { contextWindow: 50 } },
    });
    const badKey = await failure(clientFor(server, { apiKey: 'sk-wrong' }).complete(ask));
    expect(badKey).toMatchObject({
      code: 'model.auth',
      retryable: false,
      details: { status: 401 },
    });
    const unknown = await failure(clientFor(server, { model: 'claude-missing' }).complete(ask));
    expect(unknown).toMatchObject({
      code: 'model.not_found',
      details: { model: 'claude-missing' },
    });
    const tooLong = await failure(
      clientFor(server, { model: 'claude-small' }).complete({
        messages: [{ role: 'user', content: 'z'.repeat(400) }],
      }),
    );
    expect(tooLong).toMatchObject({ code: 'model.context_too_long', details: { status: 400 } });
    expect(server.requests).toHaveLength(3);
  });

  it('maps other 400s to model.bad_request', async () => {
    await using server = await startFakeAnthropic({
      script: { status: 400, errorMessage: 'messages: roles must alternate' },
    });
    const error = await failure(clientFor(server).complete(ask));
    expect(error).toMatchObject({ code: 'model.bad_request', retryable: false });
  });
});
