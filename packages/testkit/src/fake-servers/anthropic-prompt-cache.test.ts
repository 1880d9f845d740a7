import { describe, expect, it } from 'vitest';
import { seededRandom } from '../tasks/seeded-random.js';
import { type CacheBlock, createPromptCache } from './anthropic-prompt-cache.js';

const block = (key: string, tokens: number, breakpoint?: '5m' | '1h'): CacheBlock => ({
  key,
  tokens,
  breakpoint,
});

describe('createPromptCache', () => {
  it('writes at a breakpoint, then reads the same prefix and bills the rest as input', () => {
    const cache = createPromptCache({ now: () => 0 });
    const first = cache.account({
      model: 'm',
      blocks: [block('s', 100, '5m'), block('u', 10)],
      minTokens: 50,
    });
    expect(first).toEqual({
      inputTokens: 10,
      cacheReadTokens: 0,
      cacheWrite5mTokens: 100,
      cacheWrite1hTokens: 0,
    });
    const second = cache.account({
      model: 'm',
      blocks: [block('s', 100, '5m'), block('v', 20)],
      minTokens: 50,
    });
    expect(second).toEqual({
      inputTokens: 20,
      cacheReadTokens: 100,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
    });
  });

  it('caches nothing below the minimum', () => {
    const cache = createPromptCache({ now: () => 0 });
    const blocks = [block('s', 40, '5m'), block('u', 10)];
    cache.account({ model: 'm', blocks, minTokens: 50 });
    expect(cache.account({ model: 'm', blocks, minTokens: 50 })).toEqual({
      inputTokens: 50,
      cacheReadTokens: 0,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
    });
  });

  it('expires entries after their TTL and keeps 1h entries longer', () => {
    let now = 0;
    const cache = createPromptCache({ now: () => now });
    cache.account({ model: 'm', blocks: [block('a', 100, '5m')], minTokens: 1 });
    cache.account({ model: 'm', blocks: [block('b', 100, '1h')], minTokens: 1 });
    now = 6 * 60_000;
    expect(
      cache.account({ model: 'm', blocks: [block('a', 100, '5m')], minTokens: 1 }).cacheReadTokens,
    ).toBe(0);
    expect(
      cache.account({ model: 'm', blocks: [block('b', 100, '1h')], minTokens: 1 }),
    ).toMatchObject({
      cacheReadTokens: 100,
      cacheWrite1hTokens: 0,
    });
  });

  it('finds an earlier entry within 20 blocks of a breakpoint but not beyond', () => {
    const cache = createPromptCache({ now: () => 0 });
    const base = [block('s', 100, '5m')];
    cache.account({ model: 'm', blocks: base, minTokens: 1 });
    const grown = (extra: number) =>
      [block('s', 100), ...Array.from({ length: extra }, (_, index) => block(`x${index}`, 1))].map(
        (item, index, all) =>
          index === all.length - 1 ? { ...item, breakpoint: '5m' as const } : item,
      );
    expect(cache.account({ model: 'm', blocks: grown(20), minTokens: 1 }).cacheReadTokens).toBe(
      100,
    );
    cache.clear();
    cache.account({ model: 'm', blocks: base, minTokens: 1 });
    expect(cache.account({ model: 'm', blocks: grown(21), minTokens: 1 }).cacheReadTokens).toBe(0);
  });

  it('keys entries per model', () => {
    const cache = createPromptCache({ now: () => 0 });
    cache.account({ model: 'a', blocks: [block('s', 100, '5m')], minTokens: 1 });
    expect(
      cache.account({ model: 'b', blocks: [block('s', 100, '5m')], minTokens: 1 }).cacheReadTokens,
    ).toBe(0);
  });

  it('always splits the prompt exactly into input, read and written tokens', () => {
    const random = seededRandom(99);
    const cache = createPromptCache({ now: () => 0 });
    for (let request = 0; request < 300; request += 1) {
      const blocks = Array.from({ length: random.int(1, 30) }, (_, index) =>
        block(
          `k${index}-${random.int(0, 2)}`,
          random.int(0, 400),
          random.next() < 0.15 ? random.pick(['5m', '1h'] as const) : undefined,
        ),
      );
      const total = blocks.reduce((sum, item) => sum + item.tokens, 0);
      const account = cache.account({
        model: random.pick(['a', 'b']),
        blocks,
        minTokens: random.int(0, 2000),
      });
      const values = Object.values(account);
      expect(values.every((value) => Number.isInteger(value) && value >= 0)).toBe(true);
      expect(
        account.inputTokens +
          account.cacheReadTokens +
          account.cacheWrite5mTokens +
          account.cacheWrite1hTokens,
      ).toBe(total);
      if (!blocks.some((item) => item.breakpoint)) expect(account.inputTokens).toBe(total);
    }
  });
});
