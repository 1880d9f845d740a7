import { afterEach, describe, expect, it } from 'vitest';
import { BACKENDS, openTestStore, type TestStore } from './__fixtures__/open-test-store.js';

const entry = (key: string, costUsd = 0.5) => ({
  key,
  response: JSON.stringify({ text: `answer ${key}` }),
  paidByRunId: 'run-1',
  costUsd,
  tokens: 120,
});

describe.each(BACKENDS)('call cache on %s', (backend) => {
  let opened: TestStore;
  afterEach(async () => opened.cleanup());

  it('returns what was stored, with who paid for it, and counts the hit', async () => {
    opened = await openTestStore(backend);
    const cache = opened.store.callCache;
    expect(await cache.get('k1')).toBeUndefined();
    await cache.put(entry('k1'));
    const hit = await cache.get('k1');
    expect(hit).toMatchObject({ key: 'k1', paidByRunId: 'run-1', costUsd: 0.5, tokens: 120 });
    expect(JSON.parse(hit?.response ?? '{}')).toEqual({ text: 'answer k1' });
    await cache.get('k1');
    const stats = await cache.stats();
    expect(stats).toMatchObject({ entries: 1, hits: 2, savedCostUsd: 1, savedTokens: 240 });
  });

  it('treats an entry older than the reader’s TTL as absent', async () => {
    opened = await openTestStore(backend);
    const cache = opened.store.callCache;
    await cache.put(entry('old'));
    opened.clock.advance(5_000);
    expect(await cache.get('old', { maxAgeMs: 10_000 })).toBeDefined();
    expect(await cache.get('old', { maxAgeMs: 1_000 })).toBeUndefined();
    expect((await cache.stats()).hits).toBe(1);
  });

  it('clears every entry, or only those stored before a time', async () => {
    opened = await openTestStore(backend);
    const cache = opened.store.callCache;
    await cache.put(entry('a'));
    opened.clock.advance(1_000);
    await cache.put(entry('b'));
    expect(await cache.clear({ storedBefore: opened.clock.now() })).toBe(1);
    expect(await cache.get('a')).toBeUndefined();
    expect(await cache.get('b')).toBeDefined();
    expect(await cache.clear()).toBe(1);
    expect((await cache.stats()).entries).toBe(0);
  });

  // A memory store has no database a second handle could open: this case is the others' only.
  if (backend !== 'memory') {
    it('shares entries with a second handle on the same database', async () => {
      opened = await openTestStore(backend);
      await opened.store.callCache.put(entry('shared', 0.25));
      const other = await opened.reopen();
      expect(await other.callCache.get('shared')).toMatchObject({ costUsd: 0.25 });
    });
  }
});
