import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BACKENDS, openTestStore, type TestStore } from './__fixtures__/open-test-store.js';
import { iterationStart, trajectoryHeader } from './__fixtures__/run-events.js';

describe.each(BACKENDS)('RunStore (%s)', (backend) => {
  let test: TestStore;
  beforeEach(async () => {
    test = await openTestStore(backend);
  });
  afterEach(() => test.cleanup());

  it('creates a run with defaults and reads it back', async () => {
    const run = await test.store.runs.createRun({
      id: 'r1',
      config: { model: 'fake/m', maxDepth: 1 },
    });
    expect(run).toEqual({
      id: 'r1',
      parentId: null,
      owner: null,
      status: 'running',
      config: { model: 'fake/m', maxDepth: 1 },
      usage: { models: {} },
      createdAt: 1_000_000,
      updatedAt: 1_000_000,
      endedAt: null,
    });
    expect(await test.store.runs.getRun('r1')).toEqual(run);
    expect(await test.store.runs.getRun('nope')).toBeUndefined();
  });

  it('refuses a duplicate run id', async () => {
    await test.store.runs.createRun({ id: 'r1' });
    await expect(test.store.runs.createRun({ id: 'r1' })).rejects.toThrow(
      expect.objectContaining({ code: 'memory.storage_failed' }),
    );
  });

  it('updates status and usage, stamping endedAt on an end status', async () => {
    await test.store.runs.createRun({ id: 'r1' });
    test.clock.advance(10);
    const usage = {
      models: {
        'fake/m': {
          calls: 1,
          inputTokens: 5,
          outputTokens: 2,
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
          costUsd: 0.01,
        },
      },
    };
    const ended = await test.store.runs.updateRun('r1', { status: 'completed', usage });
    expect(ended).toMatchObject({
      status: 'completed',
      usage,
      updatedAt: 1_000_010,
      endedAt: 1_000_010,
    });
    await expect(test.store.runs.updateRun('nope', { status: 'error' })).rejects.toThrow(
      expect.objectContaining({ code: 'memory.not_found' }),
    );
    await expect(test.store.runs.updateRun('r1', { status: 'done' as never })).rejects.toThrow(
      /status/,
    );
  });

  it("replaces a run's config when a patch gives one, and keeps it otherwise", async () => {
    await test.store.runs.createRun({ id: 'c1', config: { budget: { maxSubcalls: 2 } } });
    await test.store.runs.updateRun('c1', { status: 'budget_exceeded' });
    expect((await test.store.runs.getRun('c1'))?.config).toEqual({ budget: { maxSubcalls: 2 } });
    const reopened = await test.store.runs.updateRun('c1', {
      status: 'queued',
      config: { budget: { maxSubcalls: 10 } },
    });
    expect(reopened).toMatchObject({ status: 'queued', endedAt: null });
    expect((await test.store.runs.getRun('c1'))?.config).toEqual({ budget: { maxSubcalls: 10 } });
  });

  it('numbers events 1, 2, 3… per run and resumes after a sequence number', async () => {
    await test.store.runs.createRun({ id: 'a' });
    await test.store.runs.createRun({ id: 'b' });
    const seqs = [];
    for (let index = 0; index < 5; index++)
      seqs.push(await test.store.runs.appendEvent('a', iterationStart('a', index)));
    expect(seqs).toEqual([1, 2, 3, 4, 5]);
    expect(await test.store.runs.appendEvent('b', iterationStart('b', 0))).toBe(1);
    const after = await test.store.runs.eventsAfter('a', 3);
    expect(after).toEqual([
      { seq: 4, event: iterationStart('a', 3) },
      { seq: 5, event: iterationStart('a', 4) },
    ]);
    expect(
      (await test.store.runs.eventsAfter('a', 0, { limit: 2 })).map((entry) => entry.seq),
    ).toEqual([1, 2]);
    expect(await test.store.runs.eventsAfter('a', 5)).toEqual([]);
  });

  it('rejects events for unknown runs and events that break the schema', async () => {
    await expect(test.store.runs.appendEvent('nope', iterationStart('nope', 0))).rejects.toThrow(
      expect.objectContaining({ code: 'memory.not_found' }),
    );
    await test.store.runs.createRun({ id: 'a' });
    const bad = { ...iterationStart('a', 0), iteration: 'one' } as never;
    await expect(test.store.runs.appendEvent('a', bad)).rejects.toThrow(
      expect.objectContaining({ code: 'protocol.invalid_message' }),
    );
    expect(await test.store.runs.eventsAfter('a', 0)).toEqual([]);
  });

  it('keeps the checkpoint of the highest turn, replacing a re-saved turn', async () => {
    await test.store.runs.createRun({ id: 'a' });
    expect(await test.store.runs.latestCheckpoint('a')).toBeUndefined();
    await test.store.runs.saveCheckpoint('a', 1, { messages: ['one'] });
    await test.store.runs.saveCheckpoint('a', 2, { messages: ['two'] });
    await test.store.runs.saveCheckpoint('a', 2, { messages: ['two, again'] });
    expect(await test.store.runs.latestCheckpoint('a')).toMatchObject({
      runId: 'a',
      turn: 2,
      data: { messages: ['two, again'] },
    });
    await expect(test.store.runs.saveCheckpoint('nope', 0, null)).rejects.toThrow(
      expect.objectContaining({ code: 'memory.not_found' }),
    );
  });

  it('stores the trajectory in order and renders it as JSONL', async () => {
    await test.store.runs.createRun({ id: 'a' });
    await test.store.runs.appendTrajectory('a', trajectoryHeader('a'));
    await test.store.runs.appendTrajectory('a', { kind: 'event', event: iterationStart('a', 0) });
    const records = await test.store.runs.trajectory('a');
    expect(records.map((record) => record.kind)).toEqual(['header', 'event']);
    const lines = (await test.store.runs.trajectoryJsonl('a')).split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe('');
    expect(JSON.parse(lines[0] ?? '')).toEqual(trajectoryHeader('a'));
    const bad = { kind: 'header', version: 99 } as never;
    await expect(test.store.runs.appendTrajectory('a', bad)).rejects.toThrow(/version/);
  });

  it('lists runs newest first with filters and cursor pagination', async () => {
    for (let index = 0; index < 5; index++) {
      await test.store.runs.createRun({
        id: `r${index}`,
        parentId: index === 4 ? 'r0' : null,
        status: index % 2 === 0 ? 'running' : 'completed',
      });
      test.clock.advance(index === 1 ? 0 : 10);
    }
    const first = await test.store.runs.listRuns({ limit: 2 });
    expect(first.runs.map((run) => run.id)).toEqual(['r4', 'r3']);
    const second = await test.store.runs.listRuns({ limit: 2, cursor: first.nextCursor ?? '' });
    expect(second.runs.map((run) => run.id)).toEqual(['r2', 'r1']);
    const third = await test.store.runs.listRuns({ limit: 2, cursor: second.nextCursor ?? '' });
    expect(third).toEqual({ runs: [expect.objectContaining({ id: 'r0' })], nextCursor: null });
    // r1 and r2 share createdAt: a page boundary between them must not skip or repeat either.
    const tied = await test.store.runs.listRuns({ limit: 3 });
    const rest = await test.store.runs.listRuns({ limit: 3, cursor: tied.nextCursor ?? '' });
    expect([...tied.runs, ...rest.runs].map((run) => run.id)).toEqual([
      'r4',
      'r3',
      'r2',
      'r1',
      'r0',
    ]);
    const running = await test.store.runs.listRuns({ status: 'running', parentId: null });
    expect(running.runs.map((run) => run.id)).toEqual(['r2', 'r0']);
    const window = await test.store.runs.listRuns({
      createdAfter: 1_000_010,
      createdBefore: 1_000_030,
    });
    expect(window.runs.map((run) => run.id)).toEqual(['r3', 'r2', 'r1']);
    await expect(test.store.runs.listRuns({ cursor: 'garbage' })).rejects.toThrow(
      expect.objectContaining({ code: 'protocol.invalid_message' }),
    );
  });

  it("pages through one owner's runs in full pages when other owners' runs are interleaved", async () => {
    for (let index = 0; index < 12; index++) {
      const owner = index % 3 === 0 ? 'key_a' : 'key_b';
      await test.store.runs.createRun({ id: `r${String(index).padStart(2, '0')}`, owner });
      test.clock.advance(index % 4 === 0 ? 0 : 10);
    }
    await test.store.runs.createRun({ id: 'child', parentId: 'r00', owner: 'key_a' });
    const seen: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = await test.store.runs.listRuns({
        owner: 'key_a',
        parentId: null,
        limit: 3,
        ...(cursor === undefined ? {} : { cursor }),
      });
      seen.push(page.runs.map((run) => run.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
    expect(seen).toEqual([['r09', 'r06', 'r03'], ['r00']]);
    const others = await test.store.runs.listRuns({ owner: 'key_b', limit: 8 });
    expect(others.runs).toHaveLength(8);
    expect(others.runs.every((run) => run.owner === 'key_b')).toBe(true);
    await expect(test.store.runs.listRuns({ owner: '' })).rejects.toThrow(/owner/);
  });

  it('deletes finished runs older than the cutoff with their events and checkpoints', async () => {
    await test.store.runs.createRun({ id: 'old-done', status: 'completed' });
    await test.store.runs.appendEvent('old-done', iterationStart('old-done', 0));
    await test.store.runs.saveCheckpoint('old-done', 0, 1);
    await test.store.runs.createRun({ id: 'old-running' });
    test.clock.advance(1000);
    await test.store.runs.createRun({ id: 'new-done', status: 'completed' });
    expect(await test.store.runs.deleteRunsBefore(1_000_500)).toEqual({ deletedRuns: 1 });
    expect(await test.store.runs.getRun('old-done')).toBeUndefined();
    expect(await test.store.runs.eventsAfter('old-done', 0)).toEqual([]);
    expect(await test.store.runs.latestCheckpoint('old-done')).toBeUndefined();
    expect((await test.store.runs.listRuns()).runs.map((run) => run.id)).toEqual([
      'new-done',
      'old-running',
    ]);
  });

  it('deletes one run whatever its status, with its descendants, events, checkpoints and trajectory', async () => {
    const runs = test.store.runs;
    await runs.createRun({ id: 'root' });
    await runs.createRun({ id: 'child', parentId: 'root' });
    await runs.createRun({ id: 'grandchild', parentId: 'child' });
    await runs.createRun({ id: 'other', status: 'completed' });
    for (const id of ['root', 'grandchild', 'other']) {
      await runs.appendEvent(id, iterationStart(id, 0));
      await runs.saveCheckpoint(id, 0, { at: id });
      await runs.appendTrajectory(id, trajectoryHeader(id));
    }
    expect(await runs.deleteRun('root')).toBe(true);
    for (const id of ['root', 'child', 'grandchild']) {
      expect(await runs.getRun(id)).toBeUndefined();
      expect(await runs.eventsAfter(id, 0)).toEqual([]);
      expect(await runs.latestCheckpoint(id)).toBeUndefined();
      expect(await runs.trajectory(id)).toEqual([]);
    }
    expect((await runs.listRuns()).runs.map((run) => run.id)).toEqual(['other']);
    expect(await runs.eventsAfter('other', 0)).toHaveLength(1);
    expect(await runs.trajectory('other')).toHaveLength(1);
  });

  it('answers false for a run it does not have, and rejects a blank id', async () => {
    expect(await test.store.runs.deleteRun('nope')).toBe(false);
    await expect(test.store.runs.deleteRun(' ')).rejects.toThrow(
      expect.objectContaining({ code: 'protocol.invalid_message' }),
    );
  });

  it('numbers the events of a new run with a deleted run id from 1 again', async () => {
    await test.store.runs.createRun({ id: 'r' });
    await test.store.runs.appendEvent('r', iterationStart('r', 0));
    await test.store.runs.deleteRun('r');
    await test.store.runs.createRun({ id: 'r' });
    expect(await test.store.runs.appendEvent('r', iterationStart('r', 0))).toBe(1);
  });
});
