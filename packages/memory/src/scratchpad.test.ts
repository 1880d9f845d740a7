import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BACKENDS, openTestStore, type TestStore } from './__fixtures__/open-test-store.js';
import { DEFAULT_SCRATCHPAD_MAX_ENTRIES } from './scratchpad.js';

describe.each(BACKENDS)('Scratchpad (%s)', (backend) => {
  let test: TestStore;
  beforeEach(async () => {
    test = await openTestStore(backend);
  });
  afterEach(() => test.cleanup());

  it('stores a value with timestamps and reads it back', async () => {
    const value = {
      type: 'note',
      summary: 'one',
      raw: { list: [1, 'two', null], nested: { ok: true } },
    };
    const written = await test.store.scratchpad.set('a', value);
    expect(written).toEqual({ key: 'a', ...value, createdAt: 1_000_000, updatedAt: 1_000_000 });
    expect(await test.store.scratchpad.get('a')).toEqual(written);
    expect(await test.store.scratchpad.get('missing')).toBeUndefined();
  });

  it('keeps createdAt and moves updatedAt when a key is replaced', async () => {
    await test.store.scratchpad.set('a', { type: 'note', summary: 'v1', raw: 1 });
    test.clock.advance(50);
    const replaced = await test.store.scratchpad.set('a', { type: 'note', summary: 'v2', raw: 2 });
    expect(replaced).toMatchObject({
      summary: 'v2',
      raw: 2,
      createdAt: 1_000_000,
      updatedAt: 1_000_050,
    });
  });

  it('lists by prefix and type, sorted by key', async () => {
    await test.store.scratchpad.set('task:2', { type: 'task-result', summary: '', raw: 2 });
    await test.store.scratchpad.set('task:1', { type: 'task-result', summary: '', raw: 1 });
    await test.store.scratchpad.set('task:3', { type: 'note', summary: '', raw: 3 });
    await test.store.scratchpad.set('tasks', { type: 'task-result', summary: '', raw: 0 });
    await test.store.scratchpad.set('other', { type: 'task-result', summary: '', raw: 4 });
    const byPrefix = await test.store.scratchpad.list({ prefix: 'task:' });
    expect(byPrefix.map((entry) => entry.key)).toEqual(['task:1', 'task:2', 'task:3']);
    const both = await test.store.scratchpad.list({ prefix: 'task', type: 'task-result' });
    expect(both.map((entry) => entry.key)).toEqual(['task:1', 'task:2', 'tasks']);
    expect(await test.store.scratchpad.list()).toHaveLength(5);
  });

  it('treats prefix characters literally (no LIKE wildcards)', async () => {
    await test.store.scratchpad.set('a%b', { type: 't', summary: '', raw: 1 });
    await test.store.scratchpad.set('axb', { type: 't', summary: '', raw: 2 });
    const found = await test.store.scratchpad.list({ prefix: 'a%' });
    expect(found.map((entry) => entry.key)).toEqual(['a%b']);
  });

  it('deletes a key and reports whether it existed', async () => {
    await test.store.scratchpad.set('a', { type: 't', summary: '', raw: 1 });
    expect(await test.store.scratchpad.delete('a')).toBe(true);
    expect(await test.store.scratchpad.delete('a')).toBe(false);
    expect(await test.store.scratchpad.get('a')).toBeUndefined();
  });

  // 1,002 writes one after another: each is a round trip (and, on Postgres, a commit), which a
  // busy machine stretches well past the default time of a test.
  it('keeps 1000 entries and evicts the least recently written on the 1001st', {
    timeout: 180_000,
  }, async () => {
    expect(DEFAULT_SCRATCHPAD_MAX_ENTRIES).toBe(1000);
    for (let index = 0; index < 1000; index++) {
      await test.store.scratchpad.set(`k${index}`, { type: 't', summary: '', raw: index });
    }
    expect(await test.store.scratchpad.list()).toHaveLength(1000);
    // Rewriting k0 makes k1 the oldest write.
    await test.store.scratchpad.set('k0', { type: 't', summary: 'again', raw: 0 });
    await test.store.scratchpad.set('k1000', { type: 't', summary: '', raw: 1000 });
    const keys = new Set((await test.store.scratchpad.list()).map((entry) => entry.key));
    expect(keys.size).toBe(1000);
    expect(keys.has('k0')).toBe(true);
    expect(keys.has('k1')).toBe(false);
    expect(keys.has('k1000')).toBe(true);
  });

  it('keeps agents apart', async () => {
    await test.store.forAgent('alice').scratchpad.set('k', { type: 't', summary: 'alice', raw: 1 });
    expect(await test.store.forAgent('bob').scratchpad.get('k')).toBeUndefined();
    expect(await test.store.scratchpad.get('k')).toBeUndefined();
    expect(await test.store.forAgent('alice').scratchpad.get('k')).toMatchObject({
      summary: 'alice',
    });
  });

  it('rejects a blank key and a value that is not JSON, naming the field', async () => {
    await expect(
      test.store.scratchpad.set(' ', { type: 't', summary: '', raw: 1 }),
    ).rejects.toThrow(expect.objectContaining({ code: 'protocol.invalid_message' }));
    const bad = { type: 't', summary: '', raw: { when: new Date() } } as never;
    await expect(test.store.scratchpad.set('k', bad)).rejects.toThrow(/raw/);
  });

  it('returns copies, so mutating a result does not change the store', async () => {
    await test.store.scratchpad.set('k', { type: 't', summary: '', raw: { n: 1 } });
    const entry = await test.store.scratchpad.get('k');
    (entry?.raw as { n: number }).n = 2;
    expect((await test.store.scratchpad.get('k'))?.raw).toEqual({ n: 1 });
  });
});
