import {
  labelledRecords,
  needleHaystack,
  policies,
  scriptedModel,
  startFakeAnthropic,
  startFakeOpenAI,
} from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { createRLM } from '../index.js';
import { anthropic } from './anthropic-model.js';
import { openaiCompatible } from './openai-compatible-model.js';

// The real loop, sandbox and model clients, driven by testkit policies over fake HTTP servers.
describe('policies through the real loop and clients', () => {
  it('finds a needle with needleFinder over the Anthropic client', async () => {
    const task = needleHaystack({ chars: 80_000, seed: 21 });
    await using server = await startFakeAnthropic({
      script: policies.needleFinder({ chunkChars: 20_000 }),
    });
    const model = anthropic({ model: 'claude-sonnet-5-5', apiKey: 'sk-test', baseURL: server.url });
    const rlm = createRLM({ model, isolation: 'inline' });
    const result = await rlm.completion(task.context, { query: task.query });
    expect(result).toMatchObject({ status: 'completed', answer: task.answer });
    // Two root turns plus one sub-call per chunk.
    expect(server.requests.length).toBeGreaterThanOrEqual(6);
    expect(server.requests.every((request) => request.status === 200)).toBe(true);
  });

  it('finds a needle with the host grep helper', async () => {
    const task = needleHaystack({ chars: 200_000, seed: 8 });
    const model = scriptedModel(policies.needleFinder({ useGrep: true }));
    const result = await createRLM({ model, isolation: 'inline' }).completion(task.context, {
      query: task.query,
    });
    expect(result).toMatchObject({ status: 'completed', answer: task.answer });
    // Two root turns and one sub-call for the single matching line.
    expect(model.calls).toBe(3);
  });

  it('counts labels with chunkAndAggregate over the OpenAI-compatible client', async () => {
    const task = labelledRecords({ count: 30, seed: 6 });
    await using server = await startFakeOpenAI({
      flavor: 'vllm',
      script: policies.chunkAndAggregate({ target: 'shipping' }),
    });
    const model = openaiCompatible({ baseURL: server.url, model: 'qwen3-8b', provider: 'vllm' });
    const result = await createRLM({ model, isolation: 'inline' }).completion(task.context, {
      query: task.queryFor('shipping'),
    });
    expect(result).toMatchObject({ status: 'completed', answer: String(task.counts['shipping']) });
  });

  it('recurses with delegateToChild', async () => {
    const task = needleHaystack({ chars: 20_000, seed: 5, depth: 0.7 });
    const model = scriptedModel(policies.delegateToChild());
    const result = await createRLM({ model, isolation: 'inline', maxDepth: 2 }).completion(
      task.context,
      {
        query: task.query,
      },
    );
    expect(result).toMatchObject({ status: 'completed', answer: task.answer });
    // The root's two turns, then children's turns (or plain calls at the depth limit).
    expect(model.calls).toBeGreaterThanOrEqual(4);
    const delegated = model.requests.filter((request) =>
      request.messages.some(
        (message) => message.role === 'user' && message.content.includes('[testkit:delegate]'),
      ),
    );
    expect(delegated.length).toBeGreaterThanOrEqual(2);
  });
});
