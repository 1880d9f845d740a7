import { scriptedModel } from '@rlm/testkit';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { scriptedEngine } from '../test-support/scripted-engine.js';
import { startTestServer } from '../test-support/start-test-server.js';

function client(url: string, apiKey: string): OpenAI {
  return new OpenAI({ baseURL: `${url}/v1`, apiKey, maxRetries: 0 });
}

describe('POST /v1/chat/completions with the official openai client', () => {
  it('returns the RLM answer as a chat completion', async () => {
    const model = scriptedModel(['FINAL(Paris)']);
    await using server = await startTestServer({ engine: scriptedEngine(() => model) });
    const completion = await client(server.url, server.userKey).chat.completions.create({
      model: 'default',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'What is the capital of France?' },
      ],
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0]?.message).toMatchObject({ role: 'assistant', content: 'Paris' });
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(completion.usage?.total_tokens).toBeGreaterThan(0);
    expect(model.requests[0]?.messages[0]?.content).toBe('What is the capital of France?');
  });

  it('streams chunks with a usage chunk and [DONE]', async () => {
    const model = scriptedModel(['Thinking.', 'FINAL(Blue)']);
    await using server = await startTestServer({ engine: scriptedEngine(() => model) });
    const stream = await client(server.url, server.userKey).chat.completions.create({
      model: 'default',
      messages: [{ role: 'user', content: 'Sky colour?' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    const finishes: (string | null)[] = [];
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      expect(chunk.object).toBe('chat.completion.chunk');
      for (const choice of chunk.choices) {
        text += choice.delta.content ?? '';
        finishes.push(choice.finish_reason);
      }
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('Blue');
    expect(finishes.at(-1)).toBe('stop');
    expect(usage?.completion_tokens).toBeGreaterThan(0);
  });

  it('uses the context extension field as the context and rejects unknown models', async () => {
    await using server = await startTestServer({
      engine: scriptedEngine(() => scriptedModel(['FINAL(ok)'])),
    });
    const openai = client(server.url, server.userKey);
    const completion = await openai.chat.completions.create({
      model: 'default',
      messages: [{ role: 'user', content: 'Count the items' }],
      // @ts-expect-error: `context` is this server's extension of the OpenAI request
      context: ['a', 'b', 'c'],
    });
    const runId = (completion as unknown as { rlm: { runId: string } }).rlm.runId;
    const run = (await (await server.request(`/v1/runs/${runId}`)).json()) as {
      contextId: string;
      kind: string;
    };
    expect(run.kind).toBe('chat');
    await expect(
      openai.chat.completions.create({
        model: 'no-such-profile',
        messages: [{ role: 'user', content: 'x' }],
      }),
    ).rejects.toMatchObject({ status: 404 });
  });

  it('lists the configured profiles as models', async () => {
    await using server = await startTestServer({
      engine: scriptedEngine(() => scriptedModel([])),
      config: {
        profiles: { default: { model: 'scripted/a' }, deep: { model: 'scripted/b', maxDepth: 2 } },
      },
    });
    const openai = client(server.url, server.userKey);
    const ids = [];
    for await (const model of openai.models.list()) ids.push(model.id);
    expect(ids).toEqual(['default', 'deep']);
    expect((await openai.models.retrieve('deep')).object).toBe('model');
  });

  it('rejects a wrong key through the client with 401', async () => {
    await using server = await startTestServer({
      engine: scriptedEngine(() => scriptedModel(['FINAL(ok)'])),
    });
    await expect(
      client(server.url, 'rlm_wrong').chat.completions.create({
        model: 'default',
        messages: [{ role: 'user', content: 'x' }],
      }),
    ).rejects.toMatchObject({ status: 401 });
  });
});
