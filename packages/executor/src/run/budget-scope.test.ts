import { scriptedModel, sleep } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { createRLM } from '../index.js';
import { eventLog, repl, testRLM } from '../testing/rlm-test-kit.js';

const usage = { inputTokens: 1000, outputTokens: 100, cacheReadTokens: 0, cacheWriteTokens: 0 };

/** A root that never answers: prints its turn number each iteration. */
function endlessRoot() {
  return scriptedModel((request) => {
    const turn = request.messages.filter((message) => message.role === 'assistant').length;
    return { text: repl(`print("turn ${turn}")`), usage };
  });
}

describe('tree-wide budgets', () => {
  it('stops on the token budget with the latest response as partial answer', async () => {
    const { events, onEvent } = eventLog();
    const rlm = testRLM({ model: endlessRoot(), budget: { maxTokens: 2500 }, onEvent });
    const result = await rlm.completion('ctx');
    expect(result).toMatchObject({ status: 'budget_exceeded', answer: null, iterations: 3 });
    expect(result.partialAnswer).toContain('turn 2');
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'limit-hit', limit: 'tokens', max: 2500 }),
    );
  });

  it('stops on the cost budget', async () => {
    // 1000 input tokens at $5 and 100 output tokens at $50 per million: $0.01 a call.
    const pricing = { inputPerMTok: 5, outputPerMTok: 50 };
    const model = scriptedModel(
      (request) => {
        const turn = request.messages.filter((message) => message.role === 'assistant').length;
        return { text: repl(`print("turn ${turn}")`), usage };
      },
      { pricing, maxOutputTokens: 100 },
    );
    const rlm = testRLM({ model, budget: { maxCostUsd: 0.025 } });
    const result = await rlm.completion('ctx');
    expect(result).toMatchObject({
      status: 'budget_exceeded',
      error: { code: 'executor.budget_exceeded' },
    });
    expect(result.usage.models['scripted/model']?.costUsd).toBeCloseTo(0.03);
  });

  it('stops on the sub-call budget, refusing the call that would exceed it', async () => {
    const model = scriptedModel([
      repl('const rs = await llm_query_batched(["1", "2", "3", "4", "5"])'),
    ]);
    const subModel = scriptedModel(() => 'ok', { id: 'scripted/sub' });
    const { events, onEvent } = eventLog();
    const result = await testRLM({
      model,
      subModel,
      budget: { maxSubcalls: 3 },
      onEvent,
    }).completion('ctx');
    expect(result.status).toBe('budget_exceeded');
    expect(subModel.calls).toBeLessThanOrEqual(3);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'limit-hit', limit: 'subcalls', max: 3 }),
    );
  });

  it('ends with status timeout when the wall-time budget runs out', async () => {
    // The first turn answers at once; the second hangs until the deadline aborts it.
    const model = scriptedModel((request, index) =>
      index === 0 ? repl('print(1)') : sleep(60_000, { signal: request.signal }).then(() => 'late'),
    );
    const result = await testRLM({ model, budget: { maxWallTimeMs: 2000 } }).completion('ctx');
    expect(result.status).toBe('timeout');
    expect(result.partialAnswer).toContain('print(1)');
  });

  it('counts a child’s calls against the root budget and stops the whole tree', async () => {
    const model = scriptedModel((request) => {
      if (request.messages[0]!.content.includes('string of 4 characters')) {
        return { text: repl('print("child working")'), usage };
      }
      return { text: repl('const r = await rlm_query("dig", { context: "abcd" })'), usage };
    });
    const { events, onEvent } = eventLog();
    const result = await testRLM({
      model,
      maxDepth: 2,
      budget: { maxTokens: 4000 },
      onEvent,
    }).completion('ctx');
    expect(result.status).toBe('budget_exceeded');
    expect(result.usage.models['scripted/model']?.calls).toBe(4);
    const childEnd = events.find((event) => event.type === 'run-end' && event.depth === 1);
    expect(childEnd).toMatchObject({ status: 'budget_exceeded' });
  });

  it('gives each batched child an equal share of the remaining budget', async () => {
    const model = scriptedModel((request) => {
      if (
        request.messages[0]!.content.includes('characters in total') &&
        request.messages[0]!.content.includes('of 1 ')
      ) {
        return { text: repl('print(__rlm.budget.tokens)'), usage };
      }
      return {
        text: repl(
          'const rs = await rlm_query_batched([{ prompt: "a", context: "x" }, { prompt: "b", context: "y" }])',
        ),
        usage,
      };
    });
    const { events, onEvent } = eventLog();
    const result = await testRLM({
      model,
      maxDepth: 2,
      budget: { maxTokens: 10_000 },
      onEvent,
    }).completion('ctx');
    const childEnds = events.filter((event) => event.type === 'run-end' && event.depth === 1);
    expect(childEnds).toHaveLength(2);
    for (const end of childEnds) expect(end).toMatchObject({ status: 'budget_exceeded' });
    const shares = events.filter((event) => event.type === 'block-end' && event.depth === 1);
    expect(shares[0]).toMatchObject({ stdout: expect.stringMatching(/^4450\n/) });
    expect(result.status).not.toBe('completed');
  });
});

describe('budget exhaustion', () => {
  it('interrupts sandbox code that is still running when the tree runs out', async () => {
    // The sub-call is sent before the loop starts spinning; its usage trips the token budget.
    const model = scriptedModel([repl('llm_query("expensive").then(print)\nwhile (true) {}')]);
    const subModel = scriptedModel([{ text: 'ok', usage: { ...usage, inputTokens: 50_000 } }], {
      id: 'scripted/sub',
    });
    const rlm = createRLM({
      model,
      subModel,
      budget: { maxTokens: 20_000 },
      limits: { cpuSliceMs: 30_000 },
    });
    const startedAt = performance.now();
    const result = await rlm.completion('ctx');
    expect(result.status).toBe('budget_exceeded');
    expect(performance.now() - startedAt).toBeLessThan(15_000);
  });
});
