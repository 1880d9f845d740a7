import { costOfCall } from '@rlm/protocol';
import { describe, expect, it } from 'vitest';
import {
  ANTHROPIC_MODELS,
  ANTHROPIC_PRICES_AS_OF,
  anthropicModelInfo,
} from './anthropic-models.js';
import { OPENAI_PRICES_AS_OF, openaiModelInfo } from './openai-models.js';

const none = {
  inputTokens: 0,
  outputTokens: 0,
  cacheWrite5mTokens: 0,
  cacheWrite1hTokens: 0,
  cacheReadTokens: 0,
};

describe('costOfCall', () => {
  it('bills input, output, cache writes by TTL and cache reads at their own rates', () => {
    const sonnet = ANTHROPIC_MODELS['claude-sonnet-5-5']!.pricing;
    const cost = costOfCall(sonnet, {
      inputTokens: 1_000_000,
      outputTokens: 1_000_000,
      cacheWrite5mTokens: 1_000_000,
      cacheWrite1hTokens: 1_000_000,
      cacheReadTokens: 1_000_000,
    });
    expect(cost).toBeCloseTo(2 + 10 + 2.5 + 4 + 0.1, 10);
  });

  it('switches Haiku 5.5 to its long-prompt band above 100k prompt tokens', () => {
    const haiku = ANTHROPIC_MODELS['claude-haiku-5-5']!.pricing;
    expect(
      costOfCall(haiku, { ...none, inputTokens: 100_000, outputTokens: 1_000_000 }),
    ).toBeCloseTo(0.01 + 0.5, 10);
    expect(
      costOfCall(haiku, {
        ...none,
        inputTokens: 50_000,
        cacheReadTokens: 60_000,
        outputTokens: 1_000_000,
      }),
    ).toBeCloseTo(0.025 + 0.003 + 2.5, 10);
  });

  it('dates the price table', () => {
    expect(ANTHROPIC_PRICES_AS_OF).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('finds dated snapshot ids under their base model and nothing for unknown ones', () => {
    expect(anthropicModelInfo('claude-sonnet-5-5-20261001')).toBe(
      ANTHROPIC_MODELS['claude-sonnet-5-5'],
    );
    expect(anthropicModelInfo('claude-unknown-1')).toBeUndefined();
  });
});

describe('OPENAI_MODELS', () => {
  it('dates the price table and bills the long-context band of the 5.4 and 5.5 models', () => {
    expect(OPENAI_PRICES_AS_OF).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const pricing = openaiModelInfo('gpt-5.5')!.pricing;
    expect(costOfCall(pricing, { ...none, inputTokens: 200_000 })).toBeCloseTo(1, 10);
    expect(costOfCall(pricing, { ...none, inputTokens: 300_000 })).toBeCloseTo(3, 10);
    expect(openaiModelInfo('gpt-unknown')).toBeUndefined();
  });
});
