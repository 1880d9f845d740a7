import { type LanguageModel, RlmError, type RunEvent } from '@rlm/protocol';
import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { eventLog, repl, testRLM } from '../testing/rlm-test-kit.js';
import { BudgetScope, tokensOf } from './budget-scope.js';

/** A sub-call prompt of exactly 7,600 characters: 1,900 tokens at four characters a token. */
const BIG = 'x'.repeat(7_600);
/** The sub-model's reply: 400 characters, 100 tokens, its whole output cap. */
const REPLY = 'y'.repeat(400);
/** What one sub-call reserves and really uses: 1,900 + 100 tokens. */
const PER_CALL = 2_000;
/** The root's usage per turn, reported exactly. */
const ROOT_USAGE = {
  inputTokens: 1_000,
  outputTokens: 100,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
};

function rootModel(firstTurn: string) {
  return scriptedModel(
    (_request, index) => ({
      text: index === 0 ? repl(firstTurn) : 'FINAL(done)',
      usage: ROOT_USAGE,
    }),
    { maxOutputTokens: 100 },
  );
}

function subModel(latencyMs = 100) {
  return scriptedModel(() => REPLY, { id: 'scripted/sub', latencyMs, maxOutputTokens: 100 });
}

describe('budget reservations', () => {
  it('lets at most one call beyond the budget reach a scripted model when 50 sub-calls start at once', async () => {
    const sub = subModel();
    const max = 1_100 + 4 * PER_CALL;
    const result = await testRLM({
      model: rootModel(
        `const rs = await Promise.allSettled(Array.from({ length: 50 }, () => llm_query(${JSON.stringify(BIG)})))\nprint(rs.filter((r) => r.status === 'rejected').length, 'refused')`,
      ),
      subModel: sub,
      // The root's first turn, then room for four sub-calls.
      budget: { maxTokens: max },
    }).completion('ctx');
    expect(sub.calls).toBeGreaterThanOrEqual(4);
    expect(sub.calls).toBeLessThanOrEqual(5);
    expect(result.status).toBe('budget_exceeded');
    expect(result.refusedCalls).toBe(50 - sub.calls);
    expect(result.usage.models['scripted/sub']?.calls).toBe(sub.calls);
    expect(tokensOf(result.usage)).toBeLessThanOrEqual(max + PER_CALL);
  });

  it('makes a sub-call that does not fit wait for the call in flight instead of refusing it', async () => {
    const sub = subModel();
    const root = rootModel(
      [
        `const first = llm_query(${JSON.stringify(BIG)})`,
        `const second = await llm_query(${JSON.stringify(BIG)})`,
        'print((await first).length + second.length)',
      ].join('\n'),
    );
    const result = await testRLM({
      model: root,
      subModel: sub,
      // Room for the root's two turns and two sub-calls, but not for two worst cases at once.
      budget: { maxTokens: 1_100 + 2 * PER_CALL + 1_100 },
    }).completion('ctx');
    expect(sub.calls).toBe(2);
    expect(root.requests[1]!.messages.at(-2)!.content).toContain('800');
    expect(result).toMatchObject({ status: 'completed', answer: 'done', refusedCalls: 0 });
  });

  it('charges a call aborted in flight its reservation and reports the calls the block never awaited', async () => {
    const sub = subModel(60_000);
    const { events, onEvent } = eventLog();
    const root = rootModel(`llm_query(${JSON.stringify(BIG)})\nprint("left it running")`);
    const result = await testRLM({ model: root, subModel: sub, onEvent }).completion('ctx');
    expect(result.status).toBe('completed');
    // The prompt's bound: its 7,600 bytes plus framing (the provider reported nothing).
    expect(result.usage.models['scripted/sub']).toMatchObject({
      calls: 1,
      inputTokens: 7_616,
      outputTokens: 100,
    });
    const ended = events.filter(
      (event): event is Extract<RunEvent, { type: 'model-call-end' }> =>
        event.type === 'model-call-end' && !event.ok,
    );
    expect(ended).toEqual([expect.objectContaining({ usageEstimated: true })]);
    expect(events.find((event) => event.type === 'block-end')).toMatchObject({
      unawaitedCalls: { llm_query: 1 },
    });
    const shown = root.requests[1]!.messages.at(-2)!.content;
    expect(shown).toContain('1 call to llm_query was never awaited');
  });
});

describe('BudgetScope.reserve', () => {
  const now = () => 0;
  const estimate = { tokens: 600, costUsd: 0 };

  /** Whether `promise` has settled once pending callbacks ran (no timer involved). */
  async function isSettled(promise: Promise<unknown>): Promise<boolean> {
    let settled = false;
    promise.then(
      () => {
        settled = true;
      },
      () => {
        settled = true;
      },
    );
    await new Promise((resolve) => setImmediate(resolve));
    return settled;
  }

  it('makes a call that does not fit wait for the calls in flight, not refuses it', async () => {
    const scope = new BudgetScope({ limits: { maxTokens: 1_000 }, now });
    const first = await scope.reserve(estimate);
    const second = scope.reserve(estimate);
    expect(await isSettled(second)).toBe(false);
    expect(scope.stopInfo).toBeNull();
    scope.settle(first, { model: 'm', usage: { ...zero(), inputTokens: 100 } });
    await expect(second).resolves.toMatchObject({ estimate });
    expect(scope.refusedCalls).toBe(0);
  });

  it('admits waiting calls in the order they asked: a large one is not overtaken by small ones', async () => {
    const scope = new BudgetScope({ limits: { maxTokens: 1_000 }, now });
    const first = await scope.reserve(estimate);
    const order: string[] = [];
    const large = scope.reserve({ tokens: 900, costUsd: 0 }).then((held) => {
      order.push('large');
      return held;
    });
    // Would fit beside `first` alone, but waits behind `large`.
    const small = scope.reserve({ tokens: 100, costUsd: 0 }).then((held) => {
      order.push('small');
      return held;
    });
    expect(await isSettled(small)).toBe(false);
    scope.settle(first, null);
    scope.settle(await large, null);
    await small;
    expect(order).toEqual(['large', 'small']);
  });

  it('lets a lone call through a budget smaller than its worst case, and refuses once the cap is spent', async () => {
    const scope = new BudgetScope({ limits: { maxTokens: 100 }, now });
    const lone = await scope.reserve(estimate);
    const usage = { inputTokens: 60, outputTokens: 40, cacheReadTokens: 0, cacheWriteTokens: 0 };
    scope.settle(lone, { model: 'm', usage });
    const refusal = await scope.reserve(estimate).catch((error: unknown) => error);
    expect(RlmError.is(refusal, 'executor.budget_exceeded')).toBe(true);
    expect((refusal as Error).message).toContain(
      'token budget is spent (100 tokens of 100 tokens)',
    );
    expect(scope.stopInfo).toMatchObject({ status: 'budget_exceeded', limit: 'tokens' });
    expect(scope.refusedCalls).toBe(1);
  });

  it('never makes an essential call wait for room others hold; refuses it only for a spent cap', async () => {
    const scope = new BudgetScope({ limits: { maxTokens: 1_000 }, now });
    await scope.reserve(estimate);
    await expect(scope.reserve(estimate, { essential: true })).resolves.toBeDefined();
    scope.charge({ model: 'm', usage: { ...zero(), inputTokens: 1_000 } });
    await expect(scope.reserve(estimate, { essential: true })).rejects.toThrow(/budget is spent/);
    expect(scope.stopInfo).toMatchObject({ status: 'budget_exceeded', limit: 'tokens' });
  });

  it('serialises calls whose cost is unknown until they end', async () => {
    const scope = new BudgetScope({ limits: { maxCostUsd: 1 }, now });
    const unknown = { tokens: 10, costUsd: Number.POSITIVE_INFINITY };
    const first = await scope.reserve(unknown);
    const second = scope.reserve(unknown);
    expect(await isSettled(second)).toBe(false);
    scope.settle(first, { model: 'm', usage: { ...zero(), inputTokens: 10 }, costUsd: 0.1 });
    await expect(second).resolves.toBeDefined();
  });

  it('checks every ancestor: a child’s call waits for room in the root’s budget too', async () => {
    const root = new BudgetScope({ limits: { maxTokens: 1_000 }, now });
    const child = new BudgetScope({ parent: root, limits: { maxTokens: 5_000 }, now });
    const held = await root.reserve(estimate);
    const waiting = child.reserve(estimate);
    expect(await isSettled(waiting)).toBe(false);
    root.settle(held, null);
    await expect(waiting).resolves.toBeDefined();
  });

  it('counts a waiting call its scope’s budget stop dropped as refused, up to the root', async () => {
    const root = new BudgetScope({ limits: { maxTokens: 10_000 }, now });
    const child = new BudgetScope({ parent: root, limits: { maxTokens: 1_000 }, now });
    const held = await child.reserve(estimate);
    const waiting = child.reserve(estimate, { signal: child.signal });
    expect(await isSettled(waiting)).toBe(false);
    child.settle(held, { model: 'm', usage: { ...zero(), inputTokens: 1_200 } });
    await expect(waiting).rejects.toThrow(/tokens limit reached/);
    expect([child.refusedCalls, root.refusedCalls]).toEqual([1, 1]);
    expect(root.stopInfo).toBeNull();
  });
});

function zero() {
  return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
}

describe('a call aborted in flight, to a model that reports its cost', () => {
  it('is charged its worst case at the dearest price the model reported, not $0', async () => {
    // A provider like OpenRouter: no price table, each answer states what it cost.
    const base = scriptedModel(
      (_request, index) =>
        index === 0
          ? { text: REPLY, usage: { ...ROOT_USAGE }, costUsd: 0.011 }
          : new Promise<string>(() => undefined),
      { id: 'scripted/sub', maxOutputTokens: 100 },
    );
    const sub: LanguageModel = {
      id: base.id,
      contextWindow: base.contextWindow,
      maxOutputTokens: 100,
      reportsCost: true,
      complete: (request) => base.complete(request),
    };
    const root = rootModel(
      `await llm_query("first")\nllm_query(${JSON.stringify(BIG)})\nprint("left it running")`,
    );
    const result = await testRLM({ model: root, subModel: sub }).completion('ctx');
    expect(result.status).toBe('completed');
    // 0.011 for 1,100 tokens: $0.00001 a token, for the aborted call's 7,616 + 100 tokens.
    expect(result.usage.models['scripted/sub']?.costUsd).toBeCloseTo(0.011 + 7_716 * 0.00001, 10);
  });
});
