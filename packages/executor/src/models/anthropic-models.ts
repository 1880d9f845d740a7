import type { ModelPricing } from '@rlm/protocol';

/**
 * The date the Anthropic list prices below were last checked. Prices change often (Sonnet 5.5's
 * cache-read price halved on 2026-10-07), so treat costs as estimates and pass `pricing` to the
 * client when you know better.
 */
export const ANTHROPIC_PRICES_AS_OF = '2026-11-21';

/** What the client knows about one Claude model. */
export interface AnthropicModelInfo {
  contextWindow: number;
  pricing: ModelPricing;
}

const price = (
  inputPerMTok: number,
  outputPerMTok: number,
  cacheReadPerMTok: number,
): ModelPricing => ({
  inputPerMTok,
  outputPerMTok,
  cacheWrite5mPerMTok: inputPerMTok * 1.25,
  cacheWrite1hPerMTok: inputPerMTok * 2,
  cacheReadPerMTok,
});

const million = 1_000_000;
const legacyOpus = { contextWindow: 200_000, pricing: price(5, 25, 0.5) };
const sonnet4 = { contextWindow: 200_000, pricing: price(3, 15, 0.3) };
const haiku4 = { contextWindow: 200_000, pricing: price(1, 5, 0.1) };

/** List prices (USD per million tokens) and context windows, as of `ANTHROPIC_PRICES_AS_OF`. */
export const ANTHROPIC_MODELS: Readonly<Record<string, AnthropicModelInfo>> = {
  'claude-fable-5-2': { contextWindow: million, pricing: price(8, 40, 0.2) },
  // Mythos has always shared Fable's price card; invitation-only, so unconfirmed.
  'claude-mythos-5-2': { contextWindow: million, pricing: price(8, 40, 0.2) },
  'claude-opus-5-5': { contextWindow: million, pricing: price(4, 20, 0.2) },
  'claude-sonnet-5-5': { contextWindow: million, pricing: price(2, 10, 0.1) },
  'claude-haiku-5-5': {
    contextWindow: million,
    pricing: {
      ...price(0.1, 0.5, 0.01),
      longPrompt: { thresholdTokens: 100_000, ...price(0.5, 2.5, 0.05) },
    },
  },
  'claude-fable-5-1': { contextWindow: million, pricing: price(10, 50, 0.25) },
  'claude-mythos-5-1': { contextWindow: million, pricing: price(10, 50, 0.25) },
  'claude-fable-5': { contextWindow: million, pricing: price(10, 50, 1) },
  'claude-mythos-5': { contextWindow: million, pricing: price(10, 50, 1) },
  'claude-opus-5': { contextWindow: million, pricing: legacyOpus.pricing },
  'claude-opus-4-8': legacyOpus,
  'claude-opus-4-7': legacyOpus,
  'claude-opus-4-6': legacyOpus,
  'claude-opus-4-5': legacyOpus,
  'claude-opus-4-5-20251101': legacyOpus,
  'claude-sonnet-5': { contextWindow: million, pricing: price(2, 10, 0.2) },
  'claude-sonnet-4-6': sonnet4,
  'claude-sonnet-4-5': sonnet4,
  'claude-sonnet-4-5-20250929': sonnet4,
  'claude-haiku-4-5': haiku4,
  'claude-haiku-4-5-20251001': haiku4,
};

/** The context window assumed for Claude models missing from the table. */
export const DEFAULT_ANTHROPIC_CONTEXT_WINDOW = 200_000;

/**
 * What the table knows about `model`, also for dated snapshot ids (`claude-sonnet-5-5-20261001`
 * falls back to `claude-sonnet-5-5`); `undefined` for unknown models.
 */
export function anthropicModelInfo(model: string): AnthropicModelInfo | undefined {
  return ANTHROPIC_MODELS[model] ?? ANTHROPIC_MODELS[model.replace(/-\d{8}$/, '')];
}
