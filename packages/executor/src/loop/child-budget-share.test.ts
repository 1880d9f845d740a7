import type { ModelRequest, RunEvent } from '@rlm/protocol';
import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { tokensOf } from '../run/budget-scope.js';
import { eventLog, repl, testRLM } from '../testing/rlm-test-kit.js';
import { budgetShare } from './child-call.js';

/** What a child's system prompt says its budget is. */
function statedBudget(system: string) {
  const sentence =
    /Your budget for this task \(a share of your caller's\): at most ([^.]*?), your/.exec(
      system,
    )?.[1];
  if (sentence === undefined) throw new Error(`no budget statement in: ${system.slice(-300)}`);
  const number = (pattern: RegExp) => Number(pattern.exec(sentence)?.[1] ?? Number.NaN);
  return {
    turns: number(/(\d+) turns?/),
    tokens: number(/(\d+) tokens/),
    subcalls: number(/(\d+) sub-calls/),
    seconds: number(/(\d+) s of wall time/),
  };
}

/**
 * One scripted model for the whole tree, which never answers: the root and each level call
 * `llm_query` and start a child a level down every turn, so only the budgets end the run.
 */
function spendingTree() {
  return scriptedModel(
    (request: ModelRequest) => {
      const system = request.system ?? '';
      if (system.includes('LEVEL-2')) return repl('await llm_query("c".repeat(2000))');
      if (system.includes('LEVEL-1')) {
        return repl(
          'await llm_query("b".repeat(2000))\nawait rlm_query("go on", { systemPrompt: "LEVEL-2 worker" })',
        );
      }
      return repl(
        'await llm_query("a".repeat(2000))\nawait rlm_query("go on", { systemPrompt: "LEVEL-1 worker" })',
      );
    },
    { maxOutputTokens: 50 },
  );
}

describe('childBudgetShare', () => {
  it('gives each level of a depth-3 tree at most half of what its parent has left, says so in its prompt, and never lets the tree pass the root’s caps', async () => {
    const model = spendingTree();
    const { events, onEvent } = eventLog();
    const caps = { maxTokens: 40_000, maxSubcalls: 30, maxWallTimeMs: 600_000 };
    const result = await testRLM({
      model,
      maxDepth: 3,
      maxIterations: 4,
      budget: caps,
      onEvent,
    }).completion('ctx');
    const systems = model.requests.map((request) => request.system ?? '');
    const level1 = systems.filter((system) => system.includes('LEVEL-1')).map(statedBudget);
    const level2 = systems.filter((system) => system.includes('LEVEL-2')).map(statedBudget);
    expect(level1.length).toBeGreaterThan(0);
    expect(level2.length).toBeGreaterThan(0);
    // The default share is a half, and it compounds with depth.
    for (const budget of level1) {
      expect(budget.tokens).toBeLessThanOrEqual(caps.maxTokens / 2);
      expect(budget.subcalls).toBeLessThanOrEqual(caps.maxSubcalls / 2);
      expect(budget.turns).toBeLessThanOrEqual(2);
      expect(budget.seconds).toBeLessThanOrEqual(300);
    }
    for (const budget of level2) {
      expect(budget.tokens).toBeLessThanOrEqual(caps.maxTokens / 4);
      expect(budget.subcalls).toBeLessThanOrEqual(caps.maxSubcalls / 4);
      expect(budget.turns).toBe(1);
      expect(budget.seconds).toBeLessThanOrEqual(150);
    }
    // Sub-calls are counted before they start: the cap is never passed. Tokens are charged when a
    // call ends: at most one call beyond the cap.
    const subcalls = events.filter((event) => event.type === 'subcall-start').length;
    expect(subcalls).toBeLessThanOrEqual(caps.maxSubcalls);
    const largest = Math.max(
      ...events
        .filter(
          (event): event is Extract<RunEvent, { type: 'model-call-end' }> =>
            event.type === 'model-call-end' && event.usage !== undefined,
        )
        .map((event) => (event.usage?.inputTokens ?? 0) + (event.usage?.outputTokens ?? 0)),
    );
    expect(tokensOf(result.usage)).toBeLessThanOrEqual(caps.maxTokens + largest);
  });

  it('uses the run’s childBudgetShare instead of the default', async () => {
    const model = spendingTree();
    await testRLM({
      model,
      maxDepth: 2,
      maxIterations: 2,
      budget: { maxTokens: 40_000, childBudgetShare: 0.25 },
    }).completion('ctx');
    const level1 = model.requests
      .map((request) => request.system ?? '')
      .filter((system) => system.includes('LEVEL-1'))
      .map(statedBudget);
    expect(level1.length).toBeGreaterThan(0);
    for (const budget of level1) expect(budget.tokens).toBeLessThanOrEqual(10_000);
  });

  it('takes the lower of the share and the siblings’ equal split', () => {
    const remaining = { tokens: 1_000, costUsd: 1, subcalls: 9, wallTimeMs: null };
    expect(budgetShare(remaining, 1, 0.5)).toEqual({
      maxTokens: 500,
      maxCostUsd: 0.5,
      maxSubcalls: 4,
    });
    expect(budgetShare(remaining, 4, 0.5)).toEqual({
      maxTokens: 250,
      maxCostUsd: 0.25,
      maxSubcalls: 2,
    });
  });
});
