import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { startFakeOpenAI } from './fake-openai.js';

const hi = {
  model: 'qwen3-8b',
  max_tokens: 64,
  messages: [{ role: 'user' as const, content: 'hi' }],
};

function client(url: string, options: { maxRetries?: number; apiKey?: string } = {}) {
  return new OpenAI({
    apiKey: 'sk-test',
    baseURL: url,
    maxRetries: 0,
    organization: null,
    project: null,
    ...options,
  });
}

async function failure(promise: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof OpenAI.APIError))
    throw new Error(`expected an APIError, got ${String(error)}`);
  return error;
}

describe('startFakeOpenAI', () => {
  it('answers a JSON completion through the real SDK with usage and x-request-id', async () => {
    await using server = await startFakeOpenAI({ script: 'Hello!' });
    const { data, request_id: requestId } = await client(server.url)
      .chat.completions.create(hi)
      .withResponse();
    expect(data).toMatchObject({
      object: 'chat.completion',
      model: 'qwen3-8b',
      choices: [
        { index: 0, message: { role: 'assistant', content: 'Hello!' }, finish_reason: 'stop' },
      ],
      usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
    });
    expect(requestId).toMatch(/^req_/);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(server.requests[0]?.headers['authorization']).toBe('Bearer sk-test');
  });

  it('streams data-only chunks with the include_usage chunk and [DONE]', async () => {
    await using server = await startFakeOpenAI({
      script: { text: 'Hello there', stream: { chunks: ['Hel', 'lo there'] } },
    });
    const stream = await client(server.url).chat.completions.create({
      ...hi,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? null)).toEqual([
      '',
      'Hel',
      'lo there',
      null,
      null,
    ]);
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('stop');
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 1, completion_tokens: 3 },
    });
    const raw = await fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
      body: JSON.stringify({ ...hi, stream: true }),
    }).then((response) => response.text());
    expect(raw).not.toContain('event:');
    expect(raw).not.toContain('"usage"');
    expect(raw.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  it('requires a Bearer key in the openai flavor only', async () => {
    await using openai = await startFakeOpenAI();
    const missing = await fetch(`${openai.url}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify(hi),
    });
    expect(missing.status).toBe(401);
    await using local = await startFakeOpenAI({ flavor: 'llamacpp' });
    const open = await fetch(`${local.url}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify(hi),
    });
    expect(open.status).toBe(200);
  });

  it('shapes unknown-model and context errors like each server', async () => {
    const models = { small: { contextWindow: 5 } };
    const long = {
      ...hi,
      model: 'small',
      messages: [{ role: 'user' as const, content: 'z'.repeat(100) }],
    };
    await using openai = await startFakeOpenAI({ models });
    expect(
      await failure(client(openai.url).chat.completions.create({ ...hi, model: 'nope' })),
    ).toMatchObject({
      status: 404,
      code: 'model_not_found',
    });
    expect(await failure(client(openai.url).chat.completions.create(long))).toMatchObject({
      status: 400,
      code: 'context_length_exceeded',
    });
    await using llama = await startFakeOpenAI({ flavor: 'llamacpp', models });
    const llamaError = await failure(client(llama.url).chat.completions.create(long));
    expect(llamaError).toMatchObject({ status: 400, type: 'exceed_context_size_error' });
    expect(llamaError.error).toMatchObject({ n_prompt_tokens: 25, n_ctx: 5 });
    await using ollama = await startFakeOpenAI({ flavor: 'ollama', models });
    const ollamaError = await failure(
      client(ollama.url).chat.completions.create({ ...hi, model: 'nope' }),
    );
    expect(ollamaError.message).toBe('404 "model \\"nope\\" not found, try pulling it first"');
    await using vllm = await startFakeOpenAI({ flavor: 'vllm', models });
    expect((await failure(client(vllm.url).chat.completions.create(long))).message).toMatch(
      /^400 This model's maximum context length is 5 tokens/,
    );
    await using legacy = await startFakeOpenAI({ flavor: 'vllm-legacy', models });
    // openai 6.x reads only the `error` key, so vLLM's legacy shape arrives without a message.
    expect((await failure(client(legacy.url).chat.completions.create(long))).message).toBe(
      '400 status code (no body)',
    );
  });

  it('sends a mid-stream error payload that the SDK throws without a status', async () => {
    await using server = await startFakeOpenAI({
      script: { text: 'abcdef', stream: { errorAfterChunks: 1 } },
    });
    const stream = await client(server.url).chat.completions.create({ ...hi, stream: true });
    const error = await failure(
      (async () => {
        for await (const _ of stream) {
          /* drain */
        }
      })(),
    );
    expect(error.status).toBeUndefined();
  });

  it('truncates a stream without [DONE], which the SDK completes quietly', async () => {
    await using server = await startFakeOpenAI({
      script: { text: 'abcdef', stream: { truncateAfterChunks: 1 } },
    });
    const stream = await client(server.url).chat.completions.create({ ...hi, stream: true });
    const finishes: (string | null | undefined)[] = [];
    for await (const chunk of stream) finishes.push(chunk.choices[0]?.finish_reason);
    expect(finishes).toEqual([null, null]);
  });

  it('retries a 429 with retry-after-ms and logs both attempts', async () => {
    await using server = await startFakeOpenAI({
      script: [{ status: 429, headers: { 'retry-after-ms': '30' } }, 'ok'],
    });
    const completion = await client(server.url, { maxRetries: 1 }).chat.completions.create(hi);
    expect(completion.choices[0]?.message.content).toBe('ok');
    expect(server.requests.map((request) => [request.retryCount, request.status])).toEqual([
      [0, 429],
      [1, 200],
    ]);
    expect(server.requests[1]!.arrivedAt - server.requests[0]!.arrivedAt).toBeGreaterThanOrEqual(
      25,
    );
  });

  it('normalises system and developer messages for function scripts', async () => {
    await using server = await startFakeOpenAI({
      script: (request) =>
        `${request.system}|${request.messages.map((message) => `${message.role}:${message.content}`).join(',')}`,
    });
    const completion = await client(server.url).chat.completions.create({
      model: 'm',
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: [{ type: 'text', text: 'q' }] },
      ],
    });
    expect(completion.choices[0]?.message.content).toBe('sys|user:q');
  });

  it('stops accepting connections once closed', async () => {
    const server = await startFakeOpenAI();
    const url = server.url;
    await server.close();
    await expect(
      fetch(`${url}/chat/completions`, { method: 'POST', body: '{}' }),
    ).rejects.toThrow();
  });

  it('simulates automatic prefix caching in 128-token steps from 1024 tokens', async () => {
    await using server = await startFakeOpenAI({ script: 'ok' });
    const long = 'p'.repeat(4_000 * 4);
    const ask = (content: string) =>
      client(server.url).chat.completions.create({ ...hi, messages: [{ role: 'user', content }] });
    expect((await ask(long)).usage?.prompt_tokens_details?.cached_tokens).toBe(0);
    const again = await ask(`${long} and more`);
    expect(again.usage?.prompt_tokens_details?.cached_tokens).toBe(3_968);
    expect((await ask('short')).usage?.prompt_tokens_details?.cached_tokens).toBe(0);
    server.clearCache();
    expect((await ask(long)).usage?.prompt_tokens_details?.cached_tokens).toBe(0);
  });

  it('reports no cache details for local servers', async () => {
    await using server = await startFakeOpenAI({ flavor: 'vllm', script: 'ok' });
    const completion = await client(server.url).chat.completions.create(hi);
    expect(completion.usage).not.toHaveProperty('prompt_tokens_details');
  });
});
