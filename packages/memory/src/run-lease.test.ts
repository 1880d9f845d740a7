import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BACKENDS, openTestStore, type TestStore } from './__fixtures__/open-test-store.js';
import { iterationStart } from './__fixtures__/run-events.js';

const LEASE = { holder: 'replica-a', leaseMs: 1_000 };

describe.each(BACKENDS)('run leases (%s)', (backend) => {
  let test: TestStore;
  beforeEach(async () => {
    test = await openTestStore(backend);
    await test.store.runs.createRun({ id: 'r1', status: 'queued' });
  });
  afterEach(() => test.cleanup());

  it('claims a free run once, and again with the next epoch after the lease lapsed', async () => {
    const runs = test.store.runs;
    const first = await runs.claimRun('r1', LEASE);
    expect(first).toEqual({ runId: 'r1', holder: 'replica-a', epoch: 1, expiresAt: 1_001_000 });
    expect(await runs.claimRun('r1', { ...LEASE, holder: 'replica-b' })).toBeUndefined();
    expect(await runs.claimRun('r1', LEASE)).toBeUndefined();
    test.clock.advance(1_000);
    const second = await runs.claimRun('r1', { ...LEASE, holder: 'replica-b' });
    expect(second).toMatchObject({ holder: 'replica-b', epoch: 2 });
    expect(await runs.leaseOf('r1')).toEqual(second);
  });

  it('renews a live lease, and reports a lapsed or taken-over one as lost', async () => {
    const runs = test.store.runs;
    const lease = await runs.claimRun('r1', LEASE);
    if (lease === undefined) throw new Error('claim failed');
    test.clock.advance(900);
    const renewed = await runs.renewLease(lease, { leaseMs: 1_000 });
    expect(renewed?.expiresAt).toBe(1_001_900);
    test.clock.advance(1_000);
    expect(await runs.renewLease(lease, { leaseMs: 1_000 })).toBeUndefined();
    await runs.claimRun('r1', { ...LEASE, holder: 'replica-b' });
    expect(await runs.renewLease(lease, { leaseMs: 1_000 })).toBeUndefined();
  });

  it('releases a lease so the run can be claimed at once', async () => {
    const runs = test.store.runs;
    const lease = await runs.claimRun('r1', LEASE);
    if (lease === undefined) throw new Error('claim failed');
    expect(await runs.releaseLease(lease)).toBe(true);
    expect(await runs.releaseLease(lease)).toBe(false);
    expect(await runs.claimRun('r1', { ...LEASE, holder: 'replica-b' })).toMatchObject({
      epoch: 2,
    });
  });

  it('lists lapsed and released leases of runs still queued or running', async () => {
    const runs = test.store.runs;
    await runs.createRun({ id: 'r2', status: 'running' });
    await runs.createRun({ id: 'r3', status: 'running' });
    await runs.createRun({ id: 'ended', status: 'running' });
    for (const id of ['r1', 'r2', 'ended']) await runs.claimRun(id, LEASE);
    const live = await runs.claimRun('r3', { ...LEASE, leaseMs: 5_000 });
    await runs.updateRun('ended', { status: 'completed' });
    expect(await runs.lapsedLeases()).toEqual([]);
    test.clock.advance(1_000);
    expect((await runs.lapsedLeases()).map((lease) => lease.runId)).toEqual(['r1', 'r2']);
    if (live !== undefined) await runs.releaseLease(live);
    expect((await runs.lapsedLeases()).map((lease) => lease.runId)).toEqual(['r3', 'r1', 'r2']);
    expect(await runs.lapsedLeases({ limit: 1 })).toHaveLength(1);
  });

  it('fences writes: a holder that lost its lease writes nothing', async () => {
    const runs = test.store.runs;
    const lease = await runs.claimRun('r1', LEASE);
    if (lease === undefined) throw new Error('claim failed');
    const fenced = runs.fenced(lease);
    expect(await fenced.appendEvent('r1', iterationStart('r1', 0))).toBe(1);
    await fenced.saveCheckpoint('r1', 0, { turn: 0 });
    test.clock.advance(1_000);
    await runs.claimRun('r1', { ...LEASE, holder: 'replica-b' });
    const lost = expect.objectContaining({
      code: 'memory.lease_lost',
      details: { runId: 'r1', holder: 'replica-a' },
    });
    await expect(fenced.appendEvent('r1', iterationStart('r1', 1))).rejects.toThrow(lost);
    await expect(fenced.saveCheckpoint('r1', 1, { turn: 1 })).rejects.toThrow(lost);
    await expect(fenced.updateRun('r1', { status: 'completed' })).rejects.toThrow(lost);
    expect(await runs.eventsAfter('r1', 0)).toHaveLength(1);
    expect((await runs.latestCheckpoint('r1'))?.turn).toBe(0);
    expect((await runs.getRun('r1'))?.status).toBe('queued');
    await runs.createRun({ id: 'other' });
    expect(await fenced.appendEvent('other', iterationStart('other', 0))).toBe(1);
  });

  it('rejects unknown runs and bad options by name', async () => {
    await expect(test.store.runs.claimRun('nope', LEASE)).rejects.toThrow(
      expect.objectContaining({ code: 'memory.not_found' }),
    );
    await expect(test.store.runs.claimRun('r1', { holder: ' ', leaseMs: 10 })).rejects.toThrow(
      /holder/,
    );
    await expect(test.store.runs.claimRun('r1', { holder: 'a', leaseMs: 0 })).rejects.toThrow(
      /leaseMs/,
    );
  });
});

describe.each(BACKENDS.filter((backend) => backend !== 'memory'))(
  'createRun inTransaction (%s)',
  (backend) => {
    let test: TestStore;
    beforeEach(async () => {
      test = await openTestStore(backend);
    });
    afterEach(() => test.cleanup());
    const countRuns =
      backend === 'postgres'
        ? 'SELECT count(*)::int AS n FROM runs WHERE id = $1'
        : 'SELECT count(*) AS n FROM runs WHERE id = ?';

    it('runs the caller’s statements in the transaction that inserts the run', async () => {
      let seen: unknown;
      await test.store.runs.createRun(
        { id: 'r1' },
        {
          inTransaction: async (sql) => {
            seen = (await sql.executeSql(countRuns, ['r1'])).rows;
          },
        },
      );
      expect(seen).toEqual([{ n: 1 }]);
    });

    it('grants one claim when two connections race for the same run', async () => {
      await test.store.runs.createRun({ id: 'contended', status: 'queued' });
      const other = await test.reopen();
      const claims = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          (index % 2 === 0 ? test.store : other).runs.claimRun('contended', {
            holder: `replica-${index}`,
            leaseMs: 60_000,
          }),
        ),
      );
      expect(claims.filter((claim) => claim !== undefined)).toHaveLength(1);
    });

    it('stores nothing when the caller’s statements fail', async () => {
      const refusal = new Error('refused by the caller');
      await expect(
        test.store.runs.createRun(
          { id: 'r1' },
          {
            inTransaction: async () => {
              throw refusal;
            },
          },
        ),
      ).rejects.toThrow();
      expect(await test.store.runs.getRun('r1')).toBeUndefined();
    });
  },
);

describe('createRun inTransaction (memory)', () => {
  it('is refused with config.invalid', async () => {
    const test = await openTestStore('memory');
    await expect(
      test.store.runs.createRun({ id: 'r1' }, { inTransaction: async () => undefined }),
    ).rejects.toThrow(expect.objectContaining({ code: 'config.invalid' }));
    await test.cleanup();
  });
});
