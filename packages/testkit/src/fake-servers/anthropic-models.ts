/** What the fake Anthropic server knows about a model. */
export interface FakeAnthropicModel {
  /** Prompts above this many (estimated) tokens get 400 "prompt is too long". */
  contextWindow: number;
  /** Below this many prefix tokens a breakpoint silently caches nothing. */
  cacheMinTokens: number;
}

const million = 1_000_000;

/**
 * Models the fake server accepts by default. Minimum cacheable prefixes follow the published
 * per-model values where known (see docs/llm-wire notes); unknown ones use 1024. Tests that need
 * other limits pass `models` to `startFakeAnthropic`.
 */
export const DEFAULT_FAKE_ANTHROPIC_MODELS: Readonly<Record<string, FakeAnthropicModel>> = {
  'claude-fable-5-2': { contextWindow: million, cacheMinTokens: 1024 },
  'claude-mythos-5-2': { contextWindow: million, cacheMinTokens: 1024 },
  'claude-opus-5-5': { contextWindow: million, cacheMinTokens: 1024 },
  'claude-sonnet-5-5': { contextWindow: million, cacheMinTokens: 1024 },
  'claude-haiku-5-5': { contextWindow: million, cacheMinTokens: 1024 },
  'claude-fable-5-1': { contextWindow: million, cacheMinTokens: 512 },
  'claude-mythos-5-1': { contextWindow: million, cacheMinTokens: 512 },
  'claude-fable-5': { contextWindow: million, cacheMinTokens: 512 },
  'claude-mythos-5': { contextWindow: million, cacheMinTokens: 512 },
  'claude-opus-5': { contextWindow: million, cacheMinTokens: 512 },
  'claude-sonnet-5': { contextWindow: million, cacheMinTokens: 1024 },
  'claude-opus-4-8': { contextWindow: 200_000, cacheMinTokens: 1024 },
  'claude-opus-4-7': { contextWindow: 200_000, cacheMinTokens: 2048 },
  'claude-opus-4-6': { contextWindow: 200_000, cacheMinTokens: 4096 },
  'claude-opus-4-5': { contextWindow: 200_000, cacheMinTokens: 4096 },
  'claude-opus-4-5-20251101': { contextWindow: 200_000, cacheMinTokens: 4096 },
  'claude-sonnet-4-6': { contextWindow: 200_000, cacheMinTokens: 1024 },
  'claude-sonnet-4-5': { contextWindow: 200_000, cacheMinTokens: 1024 },
  'claude-sonnet-4-5-20250929': { contextWindow: 200_000, cacheMinTokens: 1024 },
  'claude-haiku-4-5': { contextWindow: 200_000, cacheMinTokens: 4096 },
  'claude-haiku-4-5-20251001': { contextWindow: 200_000, cacheMinTokens: 4096 },
};
