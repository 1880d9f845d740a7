import type { ModelPricing } from '@rlm/protocol';

/**
 * The date the OpenAI list prices below were last checked (standard tier, short context, from
 * summaries of OpenAI's pricing page). Prices change; pass `pricing` to the client when you know
 * better, and treat costs as estimates.
 */
export const OPENAI_PRICES_AS_OF = '2026-06-04';

/** What the client knows about one OpenAI model. */
export interface OpenAIModelInfo {
  pricing: ModelPricing;
  /** Context window in tokens, where it is certain. */
  contextWindow?: number;
}

// OpenAI does not bill cache writes; reads are billed at the "cached input" price.
const price = (
  inputPerMTok: number,
  cachedPerMTok: number,
  outputPerMTok: number,
): ModelPricing => ({
  inputPerMTok,
  outputPerMTok,
  cacheReadPerMTok: cachedPerMTok,
  cacheWrite5mPerMTok: inputPerMTok,
  cacheWrite1hPerMTok: inputPerMTok,
});

/** Above 270K prompt tokens the 5.4 and 5.5 models bill 2× input and 1.5× output. */
const withLongContext = (base: ModelPricing): ModelPricing => ({
  ...base,
  longPrompt: {
    thresholdTokens: 270_000,
    ...price(base.inputPerMTok * 2, (base.cacheReadPerMTok ?? 0) * 2, base.outputPerMTok * 1.5),
  },
});

const gpt5 = { pricing: price(1.25, 0.125, 10), contextWindow: 400_000 };
const gpt41Window = 1_047_576;

/** List prices (USD per million tokens), as of `OPENAI_PRICES_AS_OF`. */
export const OPENAI_MODELS: Readonly<Record<string, OpenAIModelInfo>> = {
  'gpt-5.5': { pricing: withLongContext(price(5, 0.5, 30)) },
  'gpt-5.5-pro': { pricing: price(30, 30, 180) },
  'gpt-5.4': { pricing: withLongContext(price(2.5, 0.25, 15)) },
  'gpt-5.4-pro': { pricing: price(30, 30, 180) },
  'gpt-5.4-mini': { pricing: price(0.75, 0.075, 4.5) },
  'gpt-5.4-nano': { pricing: price(0.2, 0.02, 1.25) },
  'gpt-5.2': { pricing: price(1.75, 0.175, 14), contextWindow: 400_000 },
  'gpt-5.2-pro': { pricing: price(21, 21, 168), contextWindow: 400_000 },
  'gpt-5.1': gpt5,
  'gpt-5': gpt5,
  'gpt-5-mini': { pricing: price(0.25, 0.025, 2), contextWindow: 400_000 },
  'gpt-5-nano': { pricing: price(0.05, 0.005, 0.4), contextWindow: 400_000 },
  'gpt-4.1': { pricing: price(2, 0.5, 8), contextWindow: gpt41Window },
  'gpt-4.1-mini': { pricing: price(0.4, 0.1, 1.6), contextWindow: gpt41Window },
  'gpt-4.1-nano': { pricing: price(0.1, 0.025, 0.4), contextWindow: gpt41Window },
  'gpt-4o': { pricing: price(2.5, 1.25, 10), contextWindow: 128_000 },
  'gpt-4o-mini': { pricing: price(0.15, 0.075, 0.6), contextWindow: 128_000 },
  o3: { pricing: price(2, 0.5, 8), contextWindow: 200_000 },
  'o4-mini': { pricing: price(1.1, 0.275, 4.4), contextWindow: 200_000 },
};

/**
 * What the table knows about `model`, also for dated snapshot ids (`gpt-5-2025-08-07` falls back
 * to `gpt-5`); `undefined` for unknown models.
 */
export function openaiModelInfo(model: string): OpenAIModelInfo | undefined {
  return OPENAI_MODELS[model] ?? OPENAI_MODELS[model.replace(/-\d{4}-\d{2}-\d{2}$/, '')];
}
