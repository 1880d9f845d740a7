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

      const readEnd = longestLivePrefix(breakpoints, (position) =>
        isLive(prefixKeys[position]!, at),
      );
      if (readEnd >= 0) {
        const entry = expiries.get(prefixKeys[readEnd]!)!;
        entry.expiresAt = at + TTL_MS[entry.ttl];
      }

      const cacheReadTokens = readEnd >= 0 ? cumulative[readEnd]! : 0;
      const writes = { '5m': 0, '1h': 0 };
      let writtenEnd = readEnd;
      // Every breakpoint past the read prefix whose prefix is long enough writes an entry; the
      // tokens between consecutive written breakpoints bill at the later breakpoint's TTL.
      for (const breakpoint of breakpoints) {
        if (breakpoint <= readEnd || cumulative[breakpoint]! < minTokens) continue;
        const ttl = blocks[breakpoint]!.breakpoint!;
        expiries.set(prefixKeys[breakpoint]!, { expiresAt: at + TTL_MS[ttl], ttl });
        writes[ttl] += cumulative[breakpoint]! - (writtenEnd >= 0 ? cumulative[writtenEnd]! : 0);
        writtenEnd = breakpoint;
      }
      const account: CacheAccount = {
        inputTokens: total - cacheReadTokens - writes['5m'] - writes['1h'],
        cacheReadTokens,
        cacheWrite5mTokens: writes['5m'],
        cacheWrite1hTokens: writes['1h'],
      };
      return account;
    },
  };
}

/**
 * The furthest block position holding a live entry that some breakpoint reaches, looking back
 * from each breakpoint at most `CACHE_LOOKBACK_BLOCKS` blocks; -1 when there is none.
 */
function longestLivePrefix(
  breakpoints: readonly number[],
  isLiveAt: (position: number) => boolean,
): number {
  let readEnd = -1;
  for (const breakpoint of breakpoints) {
    const lowest = Math.max(0, breakpoint - CACHE_LOOKBACK_BLOCKS);
    for (let position = breakpoint; position > readEnd && position >= lowest; position -= 1) {
      if (isLiveAt(position)) {
        readEnd = position;
        break;
      }
    }
  }
  return readEnd;
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
