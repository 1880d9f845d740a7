import { needleHaystack } from '@rlm/testkit';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { createExecutorEngine } from '../executor-engine.js';
import { createProductionModelResolver } from '../resolve-production-model.js';
import { startTestServer, type TestServer } from '../test-support/start-test-server.js';

/** A server whose default profile is an offline policy run by the real executor. */
function offlineServer(model: string): Promise<TestServer> {
  return startTestServer({
    engine: createExecutorEngine({
      resolveModel: createProductionModelResolver({}),
      isolation: 'inline',
    }),
    config: { profiles: { default: { model } } },
  });
}

const task = needleHaystack({ chars: 30_000, seed: 5 });

/** What a client reads from a streamed chat completion, in order. */
async function collect(stream: AsyncIterable<OpenAI.ChatCompletionChunk>) {
  const order: ('progress' | 'content')[] = [];
  let progress = '';
  let content = '';
  let finish: string | null = null;
  let usage: OpenAI.CompletionUsage | null | undefined;
  for await (const chunk of stream) {
    for (const choice of chunk.choices) {
      // Not in the SDK's types: clients that know the field show it as the model's reasoning.
      const delta = choice.delta as { content?: string | null; reasoning_content?: string };
      if (delta.reasoning_content !== undefined) {
        progress += delta.reasoning_content;
        order.push('progress');
      }
      if (delta.content) {
        content += delta.content;
        order.push('content');
      }
      finish = choice.finish_reason ?? finish;
    }
    if (chunk.usage) usage = chunk.usage;
  }
  return { order, progress, content, finish, usage };
}

describe('streamed chat completions report progress', { timeout: 120_000 }, () => {
  it('sends the run’s turns and sub-calls as reasoning_content before the answer', async () => {
    await using server = await offlineServer('testkit:needle-finder');
    const openai = new OpenAI({
      baseURL: `${server.url}/v1`,
      apiKey: server.userKey,
      maxRetries: 0,
    });
    // `context` is this server's extension of the OpenAI request.
    const request = {
      model: 'default',
      messages: [{ role: 'user', content: task.query }],
      stream: true,
      stream_options: { include_usage: true },
      context: task.context,
    } as OpenAI.ChatCompletionCreateParamsStreaming;
    const stream = await openai.chat.completions.create(request);
    const { order, progress, content, finish, usage } = await collect(stream);
    expect(progress).toMatch(/^RLM run started \(testkit.needle-finder, at most \d+ turns\)/);
    expect(progress).toContain('Turn 1\n');
    expect(progress).toContain('Turn 2\n');
    expect(progress).toMatch(/\n {2}llm_query \(testkit.needle-finder\): /);
    expect(progress).toContain('  running code block 1\n');
    expect(progress).toContain('Answer ready.');
    // Progress first, the answer last: a client shows "thinking", then the reply.
    expect(order.indexOf('content')).toBe(order.length - 1);
    expect(order.filter((kind) => kind === 'progress').length).toBeGreaterThan(1);
    expect(content).toContain(task.answer);
    expect(finish).toBe('stop');
    expect(usage?.total_tokens).toBeGreaterThan(0);
  });
});
