import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { startFakeAnthropic } from './fake-anthropic.js';

const hi = {
  model: 'claude-sonnet-5-5',
  max_tokens: 64,
  messages: [{ role: 'user' as const, content: 'hi' }],
};

function client(url: string, options: { maxRetries?: number; timeout?: number } = {}) {
  return new Anthropic({ apiKey: 'sk-test', baseURL: url, maxRetries: 0, ...options });
}

async function collect(stream: AsyncIterable<Anthropic.RawMessageStreamEvent>): Promise<string> {
  let text = '';
  for await (const event of stream) {
    if (event.type === 'content_block_delta' && event.delta.type === 'text_delta')
      text += event.delta.text;
  }
  return text;
}

describe('startFakeAnthropic faults', () => {
  it('serves a queue with a 429 and retry-after-ms that the SDK honours', async () => {
    await using server = await startFakeAnthropic({
      script: [
        { status: 429, headers: { 'retry-after-ms': '40', 'retry-after': '30' } },
        'after retry',
      ],
    });
    const message = await client(server.url, { maxRetries: 2 }).messages.create(hi);
    expect(message.content[0]).toMatchObject({ text: 'after retry' });
    const [first, second] = server.requests;
    expect(server.requests.map((request) => [request.retryCount, request.status])).toEqual([
      [0, 429],
      [1, 200],
    ]);
    // The 30 s retry-after was ignored in favour of retry-after-ms.
    expect(second!.arrivedAt - first!.arrivedAt).toBeGreaterThanOrEqual(35);
    expect(second!.arrivedAt - first!.arrivedAt).toBeLessThan(10_000);
  });

  it('sends the error body shape, request-id and x-should-retry: false stops SDK retries', async () => {
    await using server = await startFakeAnthropic({
      script: { status: 529, requestId: 'req_custom', headers: { 'x-should-retry': 'false' } },
    });
    const error = await client(server.url, { maxRetries: 2 })
      .messages.create(hi)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.InternalServerError);
    expect(error).toMatchObject({ status: 529, requestID: 'req_custom', type: 'overloaded_error' });
    expect(server.requests).toHaveLength(1);
  });

  it('sends a mid-stream error event that the SDK surfaces without a status', async () => {
    await using server = await startFakeAnthropic({
      script: { text: 'abcdef', stream: { errorAfterChunks: 1 } },
    });
    const stream = await client(server.url).messages.create({ ...hi, stream: true });
    const error = await collect(stream).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(error).toMatchObject({ status: undefined, type: 'overloaded_error' });
  });

  it('truncates a stream before message_stop so MessageStream rejects', async () => {
    await using server = await startFakeAnthropic({
      script: { text: 'abcdef', stream: { truncateAfterChunks: 2 } },
    });
    const stream = client(server.url).messages.stream(hi);
    await expect(stream.finalMessage()).rejects.toThrow(/without producing a Message/);
  });

  it('resets the socket before headers, which the SDK retries as a connection error', async () => {
    await using server = await startFakeAnthropic({ script: [{ reset: true }, 'recovered'] });
    const message = await client(server.url, { maxRetries: 1 }).messages.create(hi);
    expect(message.content[0]).toMatchObject({ text: 'recovered' });
    expect(server.requests.map((request) => request.status)).toEqual([undefined, 200]);
  });

  it('resets the socket mid-stream', async () => {
    await using server = await startFakeAnthropic({
      script: { text: 'abcdef', stream: { resetAfterChunks: 1 } },
    });
    const stream = await client(server.url).messages.create({ ...hi, stream: true });
    await expect(collect(stream)).rejects.toThrow();
  });

  it('delays headers long enough to trip the SDK timeout', async () => {
    await using server = await startFakeAnthropic({ script: { text: 'late', delayMs: 5_000 } });
    const error = await client(server.url, { timeout: 100 })
      .messages.create(hi)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.APIConnectionTimeoutError);
  });

  it('delays each SSE event', async () => {
    await using server = await startFakeAnthropic({
      script: { text: 'abcd', stream: { eventDelayMs: 15 } },
    });
    const started = Date.now();
    const stream = await client(server.url).messages.create({ ...hi, stream: true });
    expect(await collect(stream)).toBe('abcd');
    // Eleven events after the first, each delayed: generous lower bound only.
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
  });

  it('answers a loud non-retryable 500 when a queue runs dry', async () => {
    await using server = await startFakeAnthropic({ script: ['only one'] });
    await client(server.url).messages.create(hi);
    const error = await client(server.url, { maxRetries: 2 })
      .messages.create(hi)
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 500 });
    expect((error as Error).message).toContain('no scripted reply left');
    expect(server.requests).toHaveLength(2);
  });

  it('passes the normalised request to a function script', async () => {
    await using server = await startFakeAnthropic({
      script: (request) =>
        `${request.system} | ${request.messages.map((m) => m.content).join(',')} | ${request.index}`,
    });
    const message = await client(server.url).messages.create({
      ...hi,
      system: [{ type: 'text', text: 'sys' }],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'a' },
            { type: 'text', text: 'b' },
          ],
        },
        { role: 'assistant', content: 'c' },
        { role: 'user', content: 'd' },
      ],
    });
    expect(message.content[0]).toMatchObject({ text: 'sys | a\nb,c,d | 0' });
  });

  it('closes cleanly while a request is still waiting', async () => {
    const server = await startFakeAnthropic({ script: { text: 'never', delayMs: 60_000 } });
    const pending = client(server.url)
      .messages.create(hi)
      .catch((caught: unknown) => caught);
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await server.close();
    expect(await pending).toBeInstanceOf(Anthropic.APIConnectionError);
    await server.close();
  });

  it('lets x-should-retry: true make the SDK retry a 400 and honours retry-after in seconds', async () => {
    await using server = await startFakeAnthropic({
      script: [
        { status: 400, headers: { 'x-should-retry': 'true', 'retry-after': '0.05' } },
        'second',
      ],
    });
    const message = await client(server.url, { maxRetries: 1 }).messages.create(hi);
    expect(message.content[0]).toMatchObject({ text: 'second' });
    expect(server.requests[1]!.arrivedAt - server.requests[0]!.arrivedAt).toBeGreaterThanOrEqual(
      45,
    );
  });

  it('sends an exact error body when the script gives one', async () => {
    const body = {
      type: 'error',
      error: { type: 'invalid_request_error', message: 'custom', details: { error_code: 'x' } },
    };
    await using server = await startFakeAnthropic({ script: { status: 400, body } });
    const response = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: {
        'x-api-key': 'k',
        'anthropic-version': '2023-06-01',
        'content-type': 'application/json',
      },
      body: JSON.stringify(hi),
    });
    expect(await response.json()).toEqual(body);
    expect(response.headers.get('request-id')).toMatch(/^req_/);
  });
});
