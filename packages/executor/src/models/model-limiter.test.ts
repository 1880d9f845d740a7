import { RlmError } from '@rlm/protocol';
import { sleep, startFakeAnthropic, startFakeOpenAI } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { anthropic } from './anthropic-model.js';
import { createModelLimiter } from './model-limiter.js';
import { openaiCompatible } from './openai-compatible-model.js';

const ask = { messages: [{ role: 'user' as const, content: 'hi' }] };

describe('createModelLimiter', () => {
  it('caps concurrent calls per provider across every client sharing it', async () => {
    let active = 0;
    let peak = 0;
    await using server = await startFakeAnthropic({
      script: async () => {
        active += 1;
        peak = Math.max(peak, active);
        await sleep(40);
        active -= 1;
        return 'ok';
      },
    });
    const limiter = createModelLimiter({ limits: { anthropic: 2 } });
    const options = { apiKey: 'k', baseURL: server.url, limiter };
    const root = anthropic({ ...options, model: 'claude-sonnet-5-5' });
    const child = anthropic({ ...options, model: 'claude-haiku-5-5' });
    const calls = Array.from({ length: 6 }, (_, index) =>
      (index % 2 === 0 ? root : child).complete(ask),
    );
    await Promise.all(calls);
    expect(peak).toBeLessThanOrEqual(2);
    expect(server.requests).toHaveLength(6);
  });

  it('keeps providers independent', async () => {
    const limiter = createModelLimiter({ limits: { anthropic: 1 }, defaultConcurrency: 3 });
    const gates: (() => void)[] = [];
    const hold = () => new Promise<void>((resolve) => gates.push(resolve));
    const running = [
      limiter.run('anthropic', hold),
      limiter.run('anthropic', hold),
      limiter.run('vllm', hold),
    ];
    await sleep(10);
    expect([
      limiter.activeCount('anthropic'),
      limiter.pendingCount('anthropic'),
      limiter.activeCount('vllm'),
    ]).toEqual([1, 1, 1]);
    while (gates.length > 0) {
      gates.shift()?.();
      await sleep(5);
    }
    await Promise.all(running);
  });

  it('rejects a queued call at once when its signal aborts, and never starts it', async () => {
    await using server = await startFakeOpenAI({ script: { text: 'slow', delayMs: 200 } });
    const limiter = createModelLimiter({ limits: { vllm: 1 } });
    const model = openaiCompatible({ baseURL: server.url, model: 'm', provider: 'vllm', limiter });
    const first = model.complete(ask);
    const controller = new AbortController();
    const queued = model
      .complete({ ...ask, signal: controller.signal })
      .catch((error: unknown) => error);
    controller.abort();
    expect(RlmError.is(await queued, 'model.aborted')).toBe(true);
    await first;
    await sleep(20);
    expect(server.requests).toHaveLength(1);
  });
});
