import { describe, expect, it } from 'vitest';
import { costOfCall, modelPricingSchema } from './model-pricing.js';

const none = {
  inputTokens: 0,
  outputTokens: 0,
  cacheWrite5mTokens: 0,
  cacheWrite1hTokens: 0,
  cacheReadTokens: 0,
};

describe('costOfCall', () => {
  it('derives cache prices from the input price when the pricing leaves them out', () => {
    const pricing = { inputPerMTok: 2, outputPerMTok: 10 };
    const cost = costOfCall(pricing, {
      inputTokens: 1_000_000,
      outputTokens: 1_000_000,
      cacheWrite5mTokens: 1_000_000,
      cacheWrite1hTokens: 1_000_000,
      cacheReadTokens: 1_000_000,
    });
    expect(cost).toBeCloseTo(2 + 10 + 2.5 + 4 + 0.2, 10);
  });

  it('bills the whole call in the long-prompt band above its threshold', () => {
    const pricing = {
      inputPerMTok: 1,
      outputPerMTok: 2,
      longPrompt: { thresholdTokens: 10, inputPerMTok: 3, outputPerMTok: 4 },
    };
    expect(costOfCall(pricing, { ...none, inputTokens: 10, outputTokens: 10 })).toBeCloseTo(30e-6);
    expect(costOfCall(pricing, { ...none, inputTokens: 11, outputTokens: 10 })).toBeCloseTo(73e-6);
  });
});

describe('modelPricingSchema', () => {
  it('names a bad field and refuses unknown ones', () => {
    const negative = modelPricingSchema.safeParse({ inputPerMTok: -1, outputPerMTok: 1 });
    expect(negative.success).toBe(false);
    expect(negative.error?.issues[0]?.path).toEqual(['inputPerMTok']);
    expect(
      modelPricingSchema.safeParse({ inputPerMTok: 1, outputPerMTok: 1, input: 2 }).success,
    ).toBe(false);
  });
});
