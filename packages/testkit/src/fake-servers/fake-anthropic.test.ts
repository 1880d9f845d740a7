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

async function rawPost(url: string, headers: Record<string, string>, body: unknown) {
  const response = await fetch(`${url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

describe('startFakeAnthropic', () => {
  it('answers a JSON request through the real SDK with the message shape and request id', async () => {
    await using server = await startFakeAnthropic({ script: 'Hello!' });
    const message = await client(server.url).messages.create(hi);
    expect(message).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-5-5',
      content: [{ type: 'text', text: 'Hello!' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 2, cache_read_input_tokens: 0 },
    });
    expect(message._request_id).toMatch(/^req_/);
    expect(server.requests[0]).toMatchObject({ path: '/v1/messages', retryCount: 0, status: 200 });
    expect(server.requests[0]?.headers['authorization']).toBe('Bearer sk-test');
    expect(server.requests[0]?.headers['anthropic-version']).toBe('2026-10-21');
  });

  it('streams the exact SSE event sequence', async () => {
    await using server = await startFakeAnthropic({
      script: { text: 'Hello there', stream: { chunks: ['Hel', 'lo there'] } },
    });
    const stream = await client(server.url).messages.create({ ...hi, stream: true });
    const events: string[] = [];
    let text = '';
    for await (const event of stream) {
      events.push(event.type);
      if (event.type === 'content_block_delta' && event.delta.type === 'text_delta')
        text += event.delta.text;
    }
    expect(events).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(text).toBe('Hello there');
    const raw = await rawPost(
      server.url,
      { 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
      { ...hi, stream: true },
    );
    expect(raw.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(raw.text).toMatch(/^event: message_start\ndata: \{"type":"message_start"/);
    expect(raw.text).toContain('event: ping\ndata: {"type":"ping"}\n\n');
    expect(raw.text.endsWith('event: message_stop\ndata: {"type":"message_stop"}\n\n')).toBe(true);
  });

  it('accepts x-api-key with 2023-06-01 and rejects missing auth with 401', async () => {
    await using server = await startFakeAnthropic({ script: 'ok' });
    const legacy = await rawPost(
      server.url,
      { 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
      hi,
    );
    expect(legacy.status).toBe(200);
    const missing = await rawPost(server.url, { 'anthropic-version': '2023-06-01' }, hi);
    expect(missing.status).toBe(401);
    expect(JSON.parse(missing.text)).toMatchObject({
      type: 'error',
      error: { type: 'authentication_error' },
    });
    const noVersion = await rawPost(server.url, { 'x-api-key': 'k' }, hi);
    expect(noVersion.status).toBe(400);
  });

  it('rejects a key outside apiKeys with AuthenticationError', async () => {
    await using server = await startFakeAnthropic({ apiKeys: ['sk-good'] });
    await expect(client(server.url).messages.create(hi)).rejects.toBeInstanceOf(
      Anthropic.AuthenticationError,
    );
  });

  it('answers 404 for an unknown model', async () => {
    await using server = await startFakeAnthropic();
    const error = await client(server.url)
      .messages.create({ ...hi, model: 'claude-nope' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.NotFoundError);
    expect((error as InstanceType<typeof Anthropic.NotFoundError>).type).toBe('not_found_error');
  });

  it('rejects sampling parameters on 2026-10-21 but accepts them on 2023-06-01', async () => {
    await using server = await startFakeAnthropic({ script: 'ok' });
    const body = { ...hi, temperature: 1 };
    const newer = await rawPost(
      server.url,
      { authorization: 'Bearer k', 'anthropic-version': '2026-10-21' },
      body,
    );
    expect(newer.status).toBe(400);
    expect(JSON.parse(newer.text).error.message).toContain('temperature');
    const older = await rawPost(
      server.url,
      { 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
      body,
    );
    expect(older.status).toBe(200);
  });

  it('rejects a fifth cache_control block with 400 and accepts four', async () => {
    await using server = await startFakeAnthropic({ script: 'ok' });
    const marked = (count: number) =>
      Array.from({ length: count }, (_, index) => ({
        type: 'text' as const,
        text: `part ${index}`,
        cache_control: { type: 'ephemeral' as const },
      }));
    const four = { ...hi, messages: [{ role: 'user' as const, content: marked(4) }] };
    await expect(client(server.url).messages.create(four)).resolves.toBeDefined();
    const five = { ...hi, messages: [{ role: 'user' as const, content: marked(5) }] };
    const error = await client(server.url)
      .messages.create(five)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect(String((error as Error).message)).toContain('Found 5');
  });

  it('counts tokens', async () => {
    await using server = await startFakeAnthropic();
    const count = await client(server.url).messages.countTokens({
      model: 'claude-sonnet-5-5',
      system: 'x'.repeat(40),
      messages: [{ role: 'user', content: 'y'.repeat(40) }],
    });
    expect(count.input_tokens).toBe(20);
  });

  it('answers 400 prompt-too-long above the model context window', async () => {
    await using server = await startFakeAnthropic({
      models: { 'claude-tiny': { contextWindow: 10 } },
    });
    const body = {
      ...hi,
      model: 'claude-tiny',
      messages: [{ role: 'user' as const, content: 'z'.repeat(100) }],
    };
    const error = await client(server.url)
      .messages.create(body)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as Error).message).toContain('prompt is too long: 25 tokens > 10 maximum');
  });

  it('applies stop sequences and max_tokens like the API', async () => {
    await using server = await startFakeAnthropic({ script: 'alpha STOP beta' });
    const stopped = await client(server.url).messages.create({ ...hi, stop_sequences: ['STOP'] });
    expect(stopped).toMatchObject({
      stop_reason: 'stop_sequence',
      stop_sequence: 'STOP',
      content: [{ text: 'alpha ' }],
    });
    const capped = await client(server.url).messages.create({ ...hi, max_tokens: 2 });
    expect(capped).toMatchObject({ stop_reason: 'max_tokens', content: [{ text: 'alpha ST' }] });
  });

  it('reports 1-hour cache writes separately and reads them back through the SDK', async () => {
    await using server = await startFakeAnthropic({
      script: 'ok',
      models: { 'claude-sonnet-5-5': { cacheMinTokens: 10 } },
    });
    const body = {
      ...hi,
      system: [
        {
          type: 'text' as const,
          text: 'S'.repeat(400),
          cache_control: { type: 'ephemeral' as const, ttl: '1h' as const },
        },
      ],
    };
    const first = await client(server.url).messages.create(body);
    expect(first.usage).toMatchObject({
      cache_creation_input_tokens: 100,
      cache_read_input_tokens: 0,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 100 },
    });
    const second = await client(server.url).messages.create(body);
    expect(second.usage).toMatchObject({
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 100,
      input_tokens: 1,
    });
  });

  it('requires auth on count_tokens too', async () => {
    await using server = await startFakeAnthropic();
    const response = await fetch(`${server.url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: { 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'claude-sonnet-5-5',
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });
    expect(response.status).toBe(401);
  });

  it('works with the SDK MessageStream helper and its text events', async () => {
    await using server = await startFakeAnthropic({
      script: { text: 'streamed words', stream: { chunks: ['stream', 'ed ', 'words'] } },
    });
    const deltas: string[] = [];
    const stream = client(server.url)
      .messages.stream(hi)
      .on('text', (delta) => deltas.push(delta));
    expect(await stream.finalText()).toBe('streamed words');
    expect(deltas).toEqual(['stream', 'ed ', 'words']);
    const final = await stream.finalMessage();
    expect(final.usage.output_tokens).toBe(4);
  });
});
