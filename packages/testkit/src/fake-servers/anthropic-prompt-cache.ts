import { createHash } from 'node:crypto';

/** One content block in render order (tools → system → messages), as the cache sees it. */
export interface CacheBlock {
  /** A stable serialisation of the block without its `cache_control` (the cache key material). */
  key: string;
  tokens: number;
  /** The block's breakpoint TTL when it carries `cache_control`. */
  breakpoint: '5m' | '1h' | undefined;
}

/** Token accounting of one request, in the Anthropic usage fields' terms. */
export interface CacheAccount {
  inputTokens: number;
  cacheReadTokens: number;
  cacheWrite5mTokens: number;
  cacheWrite1hTokens: number;
}

/** How far back from a breakpoint the API looks for an earlier cache entry, in blocks. */
export const CACHE_LOOKBACK_BLOCKS = 20;

const TTL_MS = { '5m': 5 * 60_000, '1h': 60 * 60_000 } as const;

export interface PromptCache {
  /** Accounts one request: reads the longest live prefix, writes new prefixes at breakpoints. */
  account(input: { model: string; blocks: readonly CacheBlock[]; minTokens: number }): CacheAccount;
  /** Forgets every entry. */
  clear(): void;
}

/**
 * Simulates Anthropic prompt caching: entries are keyed by (model, exact prefix up to a block),
 * written at breakpoints whose prefix reaches the model's minimum, read when a breakpoint finds a
 * live entry at most `CACHE_LOOKBACK_BLOCKS` blocks behind it, and refreshed on every hit.
 */
export function createPromptCache({ now }: { now: () => number }): PromptCache {
  const expiries = new Map<string, { expiresAt: number; ttl: '5m' | '1h' }>();

  function isLive(key: string, at: number): boolean {
    const entry = expiries.get(key);
    return entry !== undefined && entry.expiresAt > at;
  }

  return {
    clear: () => expiries.clear(),
    account({ model, blocks, minTokens }) {
      const at = now();
      const prefixKeys = prefixHashes(model, blocks);
      const cumulative = cumulativeTokens(blocks);
      const total = cumulative.at(-1) ?? 0;
      const breakpoints = blocks.flatMap((block, index) => (block.breakpoint ? [index] : []));

      let readEnd = -1;
      for (const breakpoint of breakpoints) {
        const lowest = Math.max(0, breakpoint - CACHE_LOOKBACK_BLOCKS);
        for (let position = breakpoint; position >= lowest; position -= 1) {
          if (isLive(prefixKeys[position]!, at)) {
            readEnd = Math.max(readEnd, position);
            break;
          }
        }
      }
      if (readEnd >= 0) {
        const entry = expiries.get(prefixKeys[readEnd]!)!;
        entry.expiresAt = at + TTL_MS[entry.ttl];
      }

      const account: CacheAccount = {
        inputTokens: 0,
        cacheReadTokens: readEnd >= 0 ? cumulative[readEnd]! : 0,
        cacheWrite5mTokens: 0,
        cacheWrite1hTokens: 0,
      };
      let writtenEnd = readEnd;
      for (const breakpoint of breakpoints) {
        if (breakpoint <= readEnd || cumulative[breakpoint]! < minTokens) continue;
        const ttl = blocks[breakpoint]!.breakpoint!;
        expiries.set(prefixKeys[breakpoint]!, { expiresAt: at + TTL_MS[ttl], ttl });
        const span = cumulative[breakpoint]! - (writtenEnd >= 0 ? cumulative[writtenEnd]! : 0);
        if (ttl === '1h') account.cacheWrite1hTokens += span;
        else account.cacheWrite5mTokens += span;
        writtenEnd = breakpoint;
      }
      account.inputTokens =
        total - account.cacheReadTokens - account.cacheWrite5mTokens - account.cacheWrite1hTokens;
      return account;
    },
  };
}

function prefixHashes(model: string, blocks: readonly CacheBlock[]): string[] {
  let previous = createHash('sha256').update(model).digest('hex');
  return blocks.map((block) => {
    previous = createHash('sha256')
      .update(previous)
      .update('\u0000')
      .update(block.key)
      .digest('hex');
    return previous;
  });
}

function cumulativeTokens(blocks: readonly CacheBlock[]): number[] {
  let sum = 0;
  return blocks.map((block) => {
    sum += block.tokens;
    return sum;
  });
}
