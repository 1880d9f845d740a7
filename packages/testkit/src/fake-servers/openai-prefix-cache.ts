import { createHash } from 'node:crypto';

/** OpenAI caches prompts of at least this many tokens… */
export const OPENAI_CACHE_MIN_TOKENS = 1024;
/** …in increments of this many tokens. */
export const OPENAI_CACHE_INCREMENT_TOKENS = 128;
/** How long an unused prefix stays cached. */
export const OPENAI_CACHE_TTL_MS = 10 * 60_000;

/** Characters per estimated token, as in `estimateTokens`. */
const CHARS_PER_TOKEN = 4;

export interface PrefixCache {
  /** Records the prompt and returns how many of its leading tokens were already cached. */
  cachedTokens(input: { model: string; prompt: string }): number;
  clear(): void;
}

/**
 * Simulates OpenAI's automatic prefix caching: every prompt of at least 1024 tokens is cached
 * in 128-token steps, and a later prompt reports the longest cached step it starts with as
 * `prompt_tokens_details.cached_tokens`. Entries expire after ten idle minutes.
 */
export function createPrefixCache({ now }: { now: () => number }): PrefixCache {
  const expiries = new Map<string, number>();
  const step = OPENAI_CACHE_INCREMENT_TOKENS * CHARS_PER_TOKEN;
  return {
    clear: () => expiries.clear(),
    cachedTokens({ model, prompt }) {
      const at = now();
      if (prompt.length < OPENAI_CACHE_MIN_TOKENS * CHARS_PER_TOKEN) return 0;
      const hash = createHash('sha256').update(model).update('\u0000');
      let cachedChars = 0;
      for (let end = step; end <= prompt.length; end += step) {
        hash.update(prompt.slice(end - step, end));
        const key = hash.copy().digest('hex');
        const expiresAt = expiries.get(key);
        if (expiresAt !== undefined && expiresAt > at && cachedChars === end - step)
          cachedChars = end;
        expiries.set(key, at + OPENAI_CACHE_TTL_MS);
      }
      return cachedChars < OPENAI_CACHE_MIN_TOKENS * CHARS_PER_TOKEN
        ? 0
        : cachedChars / CHARS_PER_TOKEN;
    },
  };
}
