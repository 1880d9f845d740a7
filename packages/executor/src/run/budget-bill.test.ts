import type { LanguageModel } from '@rlm/protocol';
import {
  type FakeModelRequest,
  scriptedModel,
  startFakeAnthropic,
  startFakeOpenAI,
} from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { anthropic } from '../models/anthropic-model.js';
import { openaiCompatible } from '../models/openai-compatible-model.js';
import { repl, testRLM } from '../testing/rlm-test-kit.js';
import { tokensOf } from './budget-scope.js';

/**
 * A tokenizer for dense text, as providers count it: a CJK character is a token, an emoji two,
 * ASCII four characters a token. The executor's old four-characters-a-token guess undercounts the
 * first two fourfold.
 */
function denseTokens(text: string): number {
  let ascii = 0;
  let tokens = 0;
  for (const char of text) {
    if (char.length === 2) tokens += 2;
    else if (char.charCodeAt(0) < 0x80) ascii += 1;
    else tokens += 1;
  }
  return tokens + Math.ceil(ascii / 4);
}

function promptOf(request: FakeModelRequest): string {
  return (request.system ?? '') + request.messages.map((message) => message.content).join('');
}

/** 1,000 CJK characters and 100 emoji: 1,200 tokens to the provider, 300 at four characters a token. */
const DENSE = '東京の天気は晴れです'.repeat(100) + '🙂'.repeat(100);
const REPLY_TOKENS = 20;

/**
 * A fake provider that bills dense text as a real tokenizer would and keeps the bill: every
 * request it answered, with the usage it reported (including requests the client gave up on).
 */
function billingScript(reply: (prompt: string) => string = () => 'ok') {
  const bill = { tokens: 0, requests: 0 };
  const script = (request: FakeModelRequest) => {
    const prompt = promptOf(request);
    const inputTokens = denseTokens(prompt);
    bill.tokens += inputTokens + REPLY_TOKENS;
    bill.requests += 1;
    return { text: reply(prompt), usage: { inputTokens, outputTokens: REPLY_TOKENS } };
  };
  return { bill, script };
}

/** The root's usage per turn, reported exactly. */
const ROOT_USAGE = {
  inputTokens: 1_000,
  outputTokens: 100,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
};
const ROOT_PRICING = { inputPerMTok: 2, outputPerMTok: 10 };

function rootOf(code: string) {
  return scriptedModel(
    (_request, index) => ({ text: index === 0 ? repl(code) : 'FINAL(done)', usage: ROOT_USAGE }),
    { maxOutputTokens: 100, pricing: ROOT_PRICING },
  );
}

const FAN_OUT = {
  'llm_query × 50': `await Promise.allSettled(Array.from({ length: 50 }, () => llm_query(${JSON.stringify(DENSE)})))`,
  'llm_query_batched of 50': `await llm_query_batched(Array.from({ length: 50 }, () => ${JSON.stringify(DENSE)}))`,
};

type Client = (
  script: (request: FakeModelRequest) => unknown,
  options?: { maxTokens?: number },
) => Promise<{ model: LanguageModel } & AsyncDisposable>;

const clients: [string, Client][] = [
  [
    'anthropic() against the fake Anthropic API',
    async (script, { maxTokens = 100 } = {}) => {
      const server = await startFakeAnthropic({ script: script as never });
      const model = anthropic({
        model: 'claude-sonnet-5-5',
        apiKey: 'sk-test',
        baseURL: server.url,
        maxTokens,
        promptCaching: 'off',
      });
      return { model, [Symbol.asyncDispose]: () => server.close() };
    },
  ],
  [
    'openaiCompatible() against a fake vLLM server',
    async (script, { maxTokens = 100 } = {}) => {
      const server = await startFakeOpenAI({ flavor: 'vllm', script: script as never });
      const model = openaiCompatible({
        baseURL: server.url,
        model: 'qwen3-8b',
        provider: 'vllm',
        maxTokens,
      });
      return { model, [Symbol.asyncDispose]: () => server.close() };
    },
  ],
];

describe.each(clients)('budgets match the bill: %s', (_name, start) => {
  it.each(Object.entries(FAN_OUT))(
    'keeps %s of CJK and emoji prompts within maxTokens plus one call, and totals what the provider billed',
    async (_fanOut, code) => {
      const { bill, script } = billingScript();
      await using client = await start(script);
      const perCall = denseTokens(DENSE) + REPLY_TOKENS;
      // The root's first turn, then room for four sub-calls as the provider counts them.
      const max = 1_100 + 4 * perCall;
      const result = await testRLM({
        model: rootOf(code),
        subModel: client.model,
        budget: { maxTokens: max },
      }).completion('ctx');
      expect(result.status).toBe('budget_exceeded');
      // Everything the provider billed, calls the executor aborted after sending them included.
      expect(1_100 + bill.tokens).toBeLessThanOrEqual(max + perCall);
      const sub = result.usage.models[client.model.id];
      expect(sub?.calls).toBe(bill.requests);
      expect((sub?.inputTokens ?? 0) + (sub?.outputTokens ?? 0)).toBe(bill.tokens);
      expect(tokensOf(result.usage)).toBe(1_100 + bill.tokens);
      // The calls still waiting for room when the cap stopped the run (a batch starts at most
      // `maxConcurrency` of its prompts, so fewer of its slots were waiting).
      expect(result.refusedCalls).toBeGreaterThan(0);
      expect(bill.requests + (result.refusedCalls ?? 0)).toBeLessThanOrEqual(50);
    },
  );
});

describe('cost budgets match the bill', () => {
  it('ends a maxCostUsd 0.05 run of 50 dense prompts at most one call beyond $0.05', async () => {
    // 12,000 tokens to the provider a call ($0.024 in at $2/MTok), 3,000 at four characters a token.
    const dense = DENSE.repeat(10);
    const { bill, script } = billingScript();
    await using server = await startFakeAnthropic({ script });
    const model = anthropic({
      model: 'claude-sonnet-5-5',
      apiKey: 'sk-test',
      baseURL: server.url,
      maxTokens: 100,
      promptCaching: 'off',
    });
    const perCallUsd = (denseTokens(dense) * 2 + REPLY_TOKENS * 10) / 1_000_000;
    const result = await testRLM({
      model: rootOf(
        `await Promise.allSettled(Array.from({ length: 50 }, () => llm_query(${JSON.stringify(dense)})))`,
      ),
      subModel: model,
      budget: { maxCostUsd: 0.05 },
    }).completion('ctx');
    expect(result.status).toBe('budget_exceeded');
    const billedUsd = (bill.tokens * 2 + bill.requests * REPLY_TOKENS * 8) / 1_000_000;
    const rootUsd = (1_000 * 2 + 100 * 10) / 1_000_000;
    expect(rootUsd + billedUsd).toBeLessThanOrEqual(0.05 + perCallUsd + 1e-9);
    expect(result.usage.models[model.id]?.costUsd).toBeCloseTo(billedUsd, 10);
  });
});

describe('reservations that do not refuse what fits', () => {
  it('runs all 6 sub-calls of a run needing 28.6k tokens under maxTokens 100,000, reserving 16,000 output tokens each', async () => {
    // Six 16,000-character chunks (4,000 tokens each to the provider); the answer is in the last.
    const chunks = Array.from(
      { length: 6 },
      (_, at) => `${at === 5 ? 'the code is 4417. ' : ''}${'lorem ipsum '.repeat(1_333)}`,
    );
    const { bill, script } = billingScript((prompt) =>
      prompt.includes('the code is') ? 'FOUND 4417' : 'none',
    );
    // The SDK clients' default output cap: each call may produce 16,000 tokens.
    await using client = await startFakeAnthropic({ script });
    const model = anthropic({
      model: 'claude-sonnet-5-5',
      apiKey: 'sk-test',
      baseURL: client.url,
      promptCaching: 'off',
    });
    expect(model.maxOutputTokens).toBe(16_000);
    const root = scriptedModel(
      (_request, index) => ({
        text:
          index === 0
            ? repl(
                `const rs = await llm_query_batched(${JSON.stringify(chunks)})\nFINAL(rs.find((r) => r.startsWith('FOUND')) ?? 'NOT FOUND: ' + rs.join(' | '))`,
              )
            : 'FINAL(unreachable)',
        usage: { inputTokens: 2_000, outputTokens: 100, cacheReadTokens: 0, cacheWriteTokens: 0 },
      }),
      { maxOutputTokens: 100 },
    );
    const result = await testRLM({
      model: root,
      subModel: model,
      budget: { maxTokens: 100_000 },
    }).completion('ctx');
    expect(result).toMatchObject({ status: 'completed', answer: 'FOUND 4417', refusedCalls: 0 });
    expect(bill.requests).toBe(6);
    expect(tokensOf(result.usage)).toBe(2_100 + bill.tokens);
    expect(tokensOf(result.usage)).toBeLessThan(30_000);
  });
});

describe('refused calls are reported', () => {
  it('reports the sub-call a child’s budget refused on a run that still completed', async () => {
    const model = scriptedModel(
      (request, index) => {
        if (request.system?.includes('CHILD-A') === true) {
          return repl(
            'for (let i = 0; i < 10; i++) { try { await llm_query("part " + i) } catch (e) {} }',
          );
        }
        if (request.system?.includes('CHILD-B') === true) return repl('FINAL("b")');
        return index === 0
          ? repl(
              'const rs = await rlm_query_batched([{ prompt: "a", systemPrompt: "CHILD-A" }, { prompt: "b", systemPrompt: "CHILD-B" }])\nFINAL("root saw: " + rs[0].slice(0, 40))',
            )
          : 'FINAL(unreachable)';
      },
      { maxOutputTokens: 100 },
    );
    const sub = scriptedModel(() => 'piece', { id: 'scripted/sub' });
    // The two children take 2 sub-calls of 20 and share the rest: 9 each. Child A asks for 10.
    const result = await testRLM({
      model,
      subModel: sub,
      maxDepth: 2,
      budget: { maxSubcalls: 20 },
    }).completion('ctx');
    expect(result).toMatchObject({ status: 'completed', refusedCalls: 1 });
    expect(result.answer).toContain('root saw: Error: child run');
    expect(sub.calls).toBe(9);
  });
});
