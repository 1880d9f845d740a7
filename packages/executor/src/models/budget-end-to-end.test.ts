import type { LanguageModel } from '@rlm/protocol';
import { scriptedModel, startFakeAnthropic, startFakeOpenAI } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { createRLM } from '../create-rlm.js';
import { repl, testRLM } from '../testing/rlm-test-kit.js';
import { anthropic } from './anthropic-model.js';
import { openaiCompatible } from './openai-compatible-model.js';
import { resolveModel } from './resolve-model.js';

/** A sub-call prompt of 7,600 characters (1,900 tokens) and a 400-character (100-token) reply. */
const BIG = 'x'.repeat(7_600);
const REPLY = 'y'.repeat(400);
const PER_CALL = 2_000;
const ROOT_USAGE = {
  inputTokens: 1_000,
  outputTokens: 100,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
};

/** A root whose first turn runs `code`, then answers. */
function fanOutRootOf(code: string) {
  return scriptedModel(
    (_request, index) => ({ text: index === 0 ? repl(code) : 'FINAL(done)', usage: ROOT_USAGE }),
    { maxOutputTokens: 100 },
  );
}

function fanOutRoot() {
  return fanOutRootOf(
    `const rs = await Promise.allSettled(Array.from({ length: 50 }, () => llm_query(${JSON.stringify(BIG)})))\nprint(rs.filter((r) => r.status === 'rejected').length, 'refused')`,
  );
}

const clients: [
  string,
  () => Promise<{ model: LanguageModel; requests: () => number } & AsyncDisposable>,
][] = [
  [
    'anthropic() against the fake Anthropic API',
    async () => {
      const server = await startFakeAnthropic({ script: () => ({ text: REPLY, delayMs: 200 }) });
      const model = anthropic({
        model: 'claude-sonnet-5-5',
        apiKey: 'sk-test',
        baseURL: server.url,
        maxTokens: 100,
        promptCaching: 'off',
      });
      return {
        model,
        requests: () => server.requests.length,
        [Symbol.asyncDispose]: () => server.close(),
      };
    },
  ],
  [
    'openaiCompatible() against a fake vLLM server',
    async () => {
      const server = await startFakeOpenAI({
        flavor: 'vllm',
        script: () => ({ text: REPLY, delayMs: 200 }),
      });
      const model = openaiCompatible({
        baseURL: server.url,
        model: 'qwen3-8b',
        provider: 'vllm',
        maxTokens: 100,
      });
      return {
        model,
        requests: () => server.requests.length,
        [Symbol.asyncDispose]: () => server.close(),
      };
    },
  ],
];

describe.each(clients)('budgets with the SDK clients: %s', (_name, start) => {
  it('lets at most one call beyond a budget for 4 reach the provider when 50 sub-calls start at once', async () => {
    await using client = await start();
    const result = await testRLM({
      model: fanOutRoot(),
      subModel: client.model,
      budget: { maxTokens: 1_100 + 4 * PER_CALL },
    }).completion('ctx');
    expect(client.requests()).toBeGreaterThanOrEqual(4);
    expect(client.requests()).toBeLessThanOrEqual(5);
    // The calls still waiting for room when the cap was spent were never sent.
    expect(result.refusedCalls).toBe(50 - client.requests());
    expect(result.status).toBe('budget_exceeded');
    expect(result.usage.models[client.model.id]?.calls).toBe(client.requests());
  });
});

describe('usage of aborted calls', () => {
  it('charges a call cancelled mid-stream what the provider reported, not nothing', async () => {
    // message_start (with the input usage) arrives at once; every later event waits a minute.
    await using server = await startFakeAnthropic({
      script: () => ({ text: REPLY, stream: { eventDelayMs: 60_000 } }),
    });
    const client = anthropic({
      model: 'claude-sonnet-5-5',
      apiKey: 'sk-test',
      baseURL: server.url,
      maxTokens: 5_000,
      promptCaching: 'off',
    });
    let streaming: () => void = () => undefined;
    const started = new Promise<void>((resolve) => {
      streaming = resolve;
    });
    const subModel: LanguageModel = {
      ...client,
      complete: (request) =>
        client.complete({
          ...request,
          onUsage: (usage) => {
            request.onUsage?.(usage);
            streaming();
          },
        }),
    };
    const controller = new AbortController();
    const run = testRLM({
      model: fanOutRootOf('await llm_query("a question")'),
      subModel,
    }).completion('ctx', { signal: controller.signal });
    await started;
    controller.abort();
    const result = await run;
    expect(result.status).toBe('cancelled');
    const usage = result.usage.models['anthropic/claude-sonnet-5-5'];
    expect(usage?.calls).toBe(1);
    expect(usage?.inputTokens).toBeGreaterThan(0);
    // What was reported (input, a token or so of output), not the 5,000-token output reservation.
    expect(usage?.outputTokens).toBeLessThan(100);
  });
});

describe('cost budgets on OpenAI-compatible models', () => {
  it('stops at the cap when the price is known (openai/ ids use the dated price table)', async () => {
    await using server = await startFakeOpenAI({ script: repl('print(1)') });
    const model = resolveModel('openai/gpt-5', {
      env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: server.url },
    });
    expect(model.pricing).toMatchObject({ inputPerMTok: 1.25, outputPerMTok: 10 });
    const result = await testRLM({ model, budget: { maxCostUsd: 0.000001 } }).completion('ctx');
    expect(result).toMatchObject({
      status: 'budget_exceeded',
      answer: null,
      error: { code: 'executor.budget_exceeded' },
    });
    expect(server.requests).toHaveLength(1);
    expect(result.usage.models['openai/gpt-5']?.costUsd).toBeGreaterThan(0.000001);
  });

  it('refuses the run at start when the price is unknown, saying to pass pricing', async () => {
    await using server = await startFakeOpenAI({ flavor: 'vllm' });
    const model = openaiCompatible({ baseURL: server.url, model: 'local-model' });
    expect(() => createRLM({ model, budget: { maxCostUsd: 1 } })).toThrow(
      expect.objectContaining({
        code: 'config.invalid',
        message: expect.stringMatching(/openai-compatible\/local-model.*`pricing`/s),
      }),
    );
    expect(server.requests).toHaveLength(0);
  });

  it('enforces the cap with a price passed as `pricing`', async () => {
    await using server = await startFakeOpenAI({ flavor: 'vllm', script: repl('print(1)') });
    const model = openaiCompatible({
      baseURL: server.url,
      model: 'local-model',
      pricing: { inputPerMTok: 1_000, outputPerMTok: 1_000 },
    });
    const result = await testRLM({ model, budget: { maxCostUsd: 0.5 } }).completion('ctx');
    expect(result.status).toBe('budget_exceeded');
    expect(result.usage.models['openai-compatible/local-model']?.costUsd).toBeGreaterThan(0.5);
  });

  it('counts the cost OpenRouter reports and stops at the cap without a price table', async () => {
    await using server = await startFakeOpenAI({
      script: () => ({ text: repl('print(1)'), usage: { cost: 0.02 } }),
    });
    const model = openaiCompatible({
      baseURL: server.url,
      model: 'vendor/model',
      provider: 'openrouter',
      apiKey: 'sk-or-test',
    });
    expect(model.reportsCost).toBe(true);
    const result = await testRLM({ model, budget: { maxCostUsd: 0.03 } }).completion('ctx');
    expect(result.status).toBe('budget_exceeded');
    expect(server.requests).toHaveLength(2);
    expect(result.usage.models['openrouter/vendor/model']?.costUsd).toBeCloseTo(0.04, 10);
  });
});
