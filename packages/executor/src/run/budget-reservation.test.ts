import { RlmError, type RunEvent } from '@rlm/protocol';
import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { eventLog, repl, testRLM } from '../testing/rlm-test-kit.js';
import { BudgetScope } from './budget-scope.js';

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
    const { events, onEvent } = eventLog();
    const result = await testRLM({
      model: rootModel(
        `const rs = await Promise.allSettled(Array.from({ length: 50 }, () => llm_query(${JSON.stringify(BIG)})))\nprint(rs.filter((r) => r.status === 'rejected').length, 'refused')`,
      ),
      subModel: sub,
      // The root's first turn, then room for four sub-calls.
      budget: { maxTokens: 1_100 + 4 * PER_CALL },
      onEvent,
    }).completion('ctx');
    expect(sub.calls).toBeGreaterThanOrEqual(4);
    expect(sub.calls).toBeLessThanOrEqual(5);
    const block = events.find((event) => event.type === 'block-end');
    expect(block).toMatchObject({ stdout: `${50 - sub.calls} refused\n`, unawaitedCalls: {} });
    expect(result.status).toBe('budget_exceeded');
    expect(result.usage.models['scripted/sub']?.calls).toBe(sub.calls);
  });

  it('rejects the guest’s promise at once with a message saying why', async () => {
    const sub = subModel();
    const root = rootModel(
      [
        `const first = llm_query(${JSON.stringify(BIG)})`,
        'let why = "not refused"',
        `try { await llm_query(${JSON.stringify(BIG)}) } catch (error) { why = error.name + ": " + error.message }`,
        'print(why)',
        'await first',
      ].join('\n'),
    );
    const result = await testRLM({
      model: root,
      subModel: sub,
      // Room for the root's two turns and one sub-call, not two.
      budget: { maxTokens: 1_100 + PER_CALL + 1_100 + 500 },
    }).completion('ctx');
    expect(sub.calls).toBe(1);
    const shown = root.requests[1]!.messages.at(-2)!.content;
    expect(shown).toMatch(/RlmError: This model call was refused: the token budget has no room/);
    expect(shown).toContain('2000 tokens reserved by calls still running, of 4700');
    expect(result).toMatchObject({ status: 'completed', answer: 'done' });
  });

  it('charges a call aborted in flight its reservation and reports the calls the block never awaited', async () => {
    const sub = subModel(60_000);
    const { events, onEvent } = eventLog();
    const root = rootModel(`llm_query(${JSON.stringify(BIG)})\nprint("left it running")`);
    const result = await testRLM({ model: root, subModel: sub, onEvent }).completion('ctx');
    expect(result.status).toBe('completed');
    expect(result.usage.models['scripted/sub']).toMatchObject({
      calls: 1,
      inputTokens: 1_900,
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

  it('admits calls while their worst cases fit, then refuses without stopping the scope', () => {
    const scope = new BudgetScope({ limits: { maxTokens: 1_000 }, now });
    const first = scope.reserve(estimate);
    expect(() => scope.reserve(estimate)).toThrow(
      expect.objectContaining({ code: 'executor.budget_exceeded' }),
    );
    expect(scope.stopInfo).toBeNull();
    scope.settle(first, null);
    expect(() => scope.reserve(estimate)).not.toThrow();
  });

  it('lets a lone call through a budget smaller than its worst case, and stops once the cap is spent', () => {
    const scope = new BudgetScope({ limits: { maxTokens: 100 }, now });
    const lone = scope.reserve(estimate);
    const usage = { inputTokens: 60, outputTokens: 40, cacheReadTokens: 0, cacheWriteTokens: 0 };
    scope.settle(lone, { model: 'm', usage });
    let refusal: unknown;
    try {
      scope.reserve(estimate);
    } catch (error) {
      refusal = error;
    }
    expect(RlmError.is(refusal, 'executor.budget_exceeded')).toBe(true);
    expect((refusal as Error).message).toContain('budget is spent');
    expect(scope.stopInfo).toMatchObject({ status: 'budget_exceeded', limit: 'tokens' });
  });

  it('never refuses an essential call for room others hold, only for a spent cap', () => {
    const scope = new BudgetScope({ limits: { maxTokens: 1_000 }, now });
    scope.reserve(estimate);
    expect(() => scope.reserve(estimate, { essential: true })).not.toThrow();
    scope.charge({ model: 'm', usage: { ...zero(), inputTokens: 1_000 } });
    expect(() => scope.reserve(estimate, { essential: true })).toThrow(/budget is spent/);
    expect(scope.stopInfo).toMatchObject({ status: 'budget_exceeded', limit: 'tokens' });
  });

  it('serialises calls whose cost is unknown until they end', () => {
    const scope = new BudgetScope({ limits: { maxCostUsd: 1 }, now });
    const unknown = { tokens: 10, costUsd: Number.POSITIVE_INFINITY };
    const first = scope.reserve(unknown);
    expect(() => scope.reserve(unknown)).toThrow(/unknown amount/);
    scope.settle(first, { model: 'm', usage: { ...zero(), inputTokens: 10 }, costUsd: 0.1 });
    expect(() => scope.reserve(unknown)).not.toThrow();
  });

  it('checks every ancestor: a child’s call must fit in the root’s budget too', () => {
    const root = new BudgetScope({ limits: { maxTokens: 1_000 }, now });
    const child = new BudgetScope({ parent: root, limits: { maxTokens: 5_000 }, now });
    root.reserve(estimate);
    expect(() => child.reserve(estimate)).toThrow(/token budget has no room/);
  });
});

function zero() {
  return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
}
