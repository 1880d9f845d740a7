import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BACKENDS, openTestStore, type TestStore } from './__fixtures__/open-test-store.js';

describe.each(BACKENDS)('WorkingMemory (%s)', (backend) => {
  let test: TestStore;
  beforeEach(async () => {
    test = await openTestStore(backend, { workingMemoryItems: 5 });
  });
  afterEach(() => test.cleanup());

  async function addFixtures() {
    const memory = test.store.workingMemory;
    const fact = await memory.add({
      kind: 'fact',
      content: 'The deploy key rotates every Monday',
      tags: ['ops'],
      source: 'doc:runbook',
    });
    test.clock.advance(1);
    const observation = await memory.add({
      kind: 'observation',
      content: 'Build 42 failed on lint',
      tags: ['ci'],
      source: 'tool:ci',
    });
    test.clock.advance(1);
    const episode = await memory.add({
      kind: 'episode',
      content: 'Helped alice rotate the deploy key',
      tags: ['ops', 'alice'],
      source: 'run:r1',
    });
    return { fact, observation, episode };
  }

  it('adds items with tags, source and a timestamp, and lists them newest first', async () => {
    const { fact, episode } = await addFixtures();
    expect(fact).toMatchObject({
      kind: 'fact',
      tags: ['ops'],
      source: 'doc:runbook',
      at: 1_000_000,
    });
    const listed = await test.store.workingMemory.list();
    expect(listed.map((item) => item.kind)).toEqual(['episode', 'observation', 'fact']);
    expect(listed[0]).toEqual(episode);
  });

  it('filters by kind and by every given tag', async () => {
    await addFixtures();
    const ops = await test.store.workingMemory.list({ tags: ['ops'] });
    expect(ops.map((item) => item.kind)).toEqual(['episode', 'fact']);
    const both = await test.store.workingMemory.list({
      tags: ['ops', 'alice'],
      kinds: ['episode'],
    });
    expect(both).toHaveLength(1);
    expect(await test.store.workingMemory.list({ kinds: ['fact'], limit: 0 })).toEqual([]);
  });

  it('ranks by keyword relevance and attaches provenance', async () => {
    const { fact, episode } = await addFixtures();
    const result = await test.store.workingMemory.retrieve({
      query: 'deploy key',
      budgetChars: 1000,
      fillWithRecent: false,
    });
    expect(result.items.map((item) => item.id).sort()).toEqual([fact.id, episode.id].sort());
    expect(result.items.every((item) => item.reason === 'relevant' && item.score > 0)).toBe(true);
    const [top] = result.items;
    expect(top?.provenance).toEqual({
      store: 'working-memory',
      itemId: top?.id,
      kind: top?.kind,
      source: top?.source,
      at: top?.at,
      label: `working-memory/${top?.kind}#${top?.id} from ${top?.source}`,
    });
    expect(result.omitted).toBe(1);
  });

  it('fills the rest of the budget with recent items after relevant ones', async () => {
    const { observation } = await addFixtures();
    const result = await test.store.workingMemory.retrieve({ query: 'lint', budgetChars: 1000 });
    expect(result.items[0]?.id).toBe(observation.id);
    expect(result.items.map((item) => item.reason)).toEqual(['relevant', 'recent', 'recent']);
    expect(result.items[1]?.kind).toBe('episode');
  });

  it('stays within the character budget, skipping items that do not fit', async () => {
    await addFixtures();
    const result = await test.store.workingMemory.retrieve({ budgetChars: 30 });
    expect(result.usedChars).toBeLessThanOrEqual(30);
    // The newest (34 chars) does not fit; the 23-char observation does.
    expect(result.items.map((item) => item.kind)).toEqual(['observation']);
    expect(result.omitted).toBe(2);
    expect((await test.store.workingMemory.retrieve({ budgetChars: 0 })).items).toEqual([]);
  });

  it('drops the oldest item beyond maxItems', async () => {
    for (let index = 0; index < 6; index++) {
      await test.store.workingMemory.add({ kind: 'fact', content: `fact ${index}`, source: 's' });
    }
    const contents = (await test.store.workingMemory.list()).map((item) => item.content);
    expect(contents).toEqual(['fact 5', 'fact 4', 'fact 3', 'fact 2', 'fact 1']);
  });

  it('removes an item by id', async () => {
    const { fact } = await addFixtures();
    expect(await test.store.workingMemory.remove(fact.id)).toBe(true);
    expect(await test.store.workingMemory.remove(fact.id)).toBe(false);
    expect(await test.store.workingMemory.list()).toHaveLength(2);
  });

  it('keeps agents apart', async () => {
    await test.store
      .forAgent('a')
      .workingMemory.add({ kind: 'fact', content: 'secret of a', source: 's' });
    const result = await test.store
      .forAgent('b')
      .workingMemory.retrieve({ query: 'secret', budgetChars: 100 });
    expect(result.items).toEqual([]);
  });

  it('rejects an unknown kind and a negative budget', async () => {
    const bad = { kind: 'rumour', content: 'x', source: 's' } as never;
    await expect(test.store.workingMemory.add(bad)).rejects.toThrow(/kind/);
    await expect(test.store.workingMemory.retrieve({ budgetChars: -1 })).rejects.toThrow(
      expect.objectContaining({ code: 'protocol.invalid_message' }),
    );
  });
});
