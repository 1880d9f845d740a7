import { describe, expect, it } from 'vitest';
import {
  addCallUsage,
  emptyUsage,
  type ModelUsageSummary,
  mergeUsage,
  totalUsage,
  type UsageSummary,
  usageSummarySchema,
} from './usage.js';

function modelUsage(fields: Partial<ModelUsageSummary>): ModelUsageSummary {
  return {
    calls: 1,
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    costUsd: 0,
    ...fields,
  };
}

/** Freezes a summary all the way down, so any mutation throws in strict mode. */
function frozen(summary: UsageSummary): UsageSummary {
  for (const usage of Object.values(summary.models)) Object.freeze(usage);
  Object.freeze(summary.models);
  return Object.freeze(summary);
}

describe('addCallUsage', () => {
  it('records a first call for a model', () => {
    const usage = addCallUsage(emptyUsage(), {
      model: 'anthropic/claude',
      usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 3, cacheWriteTokens: 2 },
      costUsd: 0.01,
    });
    expect(usage.models['anthropic/claude']).toEqual(
      modelUsage({
        inputTokens: 10,
        outputTokens: 5,
        cacheReadTokens: 3,
        cacheWriteTokens: 2,
        costUsd: 0.01,
      }),
    );
  });

  it('adds to an existing model and counts calls', () => {
    const before = frozen({ models: { m: modelUsage({ inputTokens: 10, costUsd: 1 }) } });
    const after = addCallUsage(before, {
      model: 'm',
      usage: { inputTokens: 5, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });
    expect(after.models['m']).toEqual(
      modelUsage({ calls: 2, inputTokens: 15, outputTokens: 1, costUsd: 1 }),
    );
    expect(before.models['m']).toEqual(modelUsage({ inputTokens: 10, costUsd: 1 }));
  });

  it('counts a cache hit apart: not a call, its saving summed, kept through a merge', () => {
    const zero = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
    let usage = addCallUsage(emptyUsage(), {
      model: 'm',
      usage: zero,
      cache: { savedCostUsd: 0.5 },
    });
    usage = addCallUsage(usage, { model: 'm', usage: zero, cache: { savedCostUsd: 0.25 } });
    usage = addCallUsage(usage, { model: 'm', usage: { ...zero, inputTokens: 4 }, costUsd: 1 });
    expect(usage.models['m']).toEqual(
      modelUsage({ calls: 1, inputTokens: 4, costUsd: 1, cachedCalls: 2, savedCostUsd: 0.75 }),
    );
    expect(mergeUsage(usage, usage).models['m']).toMatchObject({
      cachedCalls: 4,
      savedCostUsd: 1.5,
    });
    expect(usageSummarySchema.parse(usage)).toEqual(usage);
  });
});

describe('mergeUsage', () => {
  it('sums model by model and keeps models seen only once', () => {
    const a = frozen({
      models: { m1: modelUsage({ inputTokens: 1 }), m2: modelUsage({ outputTokens: 7 }) },
    });
    const b = frozen({ models: { m1: modelUsage({ inputTokens: 2, cacheReadTokens: 4 }) } });
    expect(mergeUsage(a, b)).toEqual({
      models: {
        m1: modelUsage({ calls: 2, inputTokens: 3, cacheReadTokens: 4 }),
        m2: modelUsage({ outputTokens: 7 }),
      },
    });
  });

  it('returns a new object even for a single summary', () => {
    const a = frozen({ models: { m: modelUsage({}) } });
    const merged = mergeUsage(a);
    expect(merged).toEqual(a);
    expect(merged).not.toBe(a);
    expect(merged.models['m']).not.toBe(a.models['m']);
  });

  it('gives an empty summary for no input', () => {
    expect(mergeUsage()).toEqual(emptyUsage());
  });
});

describe('totalUsage', () => {
  it('adds every model together', () => {
    const summary = frozen({
      models: {
        a: modelUsage({ inputTokens: 1, outputTokens: 2, costUsd: 0.5 }),
        b: modelUsage({ calls: 3, inputTokens: 10, cacheWriteTokens: 1, costUsd: 0.25 }),
      },
    });
    expect(totalUsage(summary)).toEqual(
      modelUsage({
        calls: 4,
        inputTokens: 11,
        outputTokens: 2,
        cacheWriteTokens: 1,
        costUsd: 0.75,
      }),
    );
  });

  it('is all zeros for an empty summary', () => {
    expect(totalUsage(emptyUsage())).toEqual(modelUsage({ calls: 0 }));
  });
});

describe('usageSummarySchema', () => {
  it('rejects negative token counts', () => {
    const bad = { models: { m: modelUsage({ inputTokens: -1 }) } };
    expect(usageSummarySchema.safeParse(bad).success).toBe(false);
  });
});
