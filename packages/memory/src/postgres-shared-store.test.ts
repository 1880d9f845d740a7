import { createTestDatabase, type TestDatabase, withClient } from '@rlm/testkit/postgres';
import type pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { POSTGRES, TEST_POLICY } from './__fixtures__/open-test-store.js';
import { iterationStart } from './__fixtures__/run-events.js';
import { createStore } from './create-store.js';
import { RUN_EVENTS_CHANNEL } from './postgres-backend/postgres-migrations.js';
import type { Store } from './store.js';

/** Several stores on one database stand for several replicas: each has its own pool. */
describe.skipIf(POSTGRES.url === null)('Postgres store shared by several replicas', () => {
  let database: TestDatabase;
  let stores: Store[];
  beforeEach(async () => {
    database = await createTestDatabase();
    stores = [];
    for (let index = 0; index < 3; index++) {
      stores.push(
        await createStore({
          kind: 'postgres',
          url: database.url,
          poolSize: 4,
          promptLayers: TEST_POLICY,
        }),
      );
    }
  });
  afterEach(async () => {
    for (const store of stores) await store.close();
    await database.drop();
  });

  it('numbers one run’s events 1…n without gaps or repeats when replicas append at once', async () => {
    await stores[0]!.runs.createRun({ id: 'shared' });
    const appends = stores.flatMap((store, replica) =>
      Array.from({ length: 20 }, (_, index) =>
        store.runs.appendEvent('shared', iterationStart('shared', replica * 100 + index)),
      ),
    );
    const seqs = await Promise.all(appends);
    expect([...seqs].sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    const read = await stores[2]!.runs.eventsAfter('shared', 0);
    expect(read.map((entry) => entry.seq)).toEqual(seqs.toSorted((a, b) => a - b));
    // Each event sits at the number its append returned.
    const byIteration = new Map(
      read.map((entry) => [(entry.event as { iteration: number }).iteration, entry.seq]),
    );
    stores.forEach((_, replica) => {
      for (let index = 0; index < 20; index++) {
        expect(byIteration.get(replica * 100 + index)).toBe(seqs[replica * 20 + index]);
      }
    });
  });

  it('gives concurrent prompt-layer updates from replicas distinct, consecutive versions', async () => {
    const updates = stores.map((store, replica) =>
      store.promptLayers.update(7, `rule from replica ${replica}`, { by: 'agent' }),
    );
    const versions = (await Promise.all(updates)).map((version) => version.version);
    expect(versions.toSorted()).toEqual([2, 3, 4]);
    const history = await stores[1]!.promptLayers.history(7);
    expect(history.map((entry) => entry.version)).toEqual([1, 2, 3, 4]);
  });

  it('announces each committed event on rlm_run_events with its run and number', async () => {
    await stores[0]!.runs.createRun({ id: 'watched' });
    const received = await withClient(database.url, async (listener) => {
      const payloads = collectNotifications(listener, 3);
      await listener.query(`LISTEN ${RUN_EVENTS_CHANNEL}`);
      for (let index = 0; index < 3; index++) {
        await stores[index]!.runs.appendEvent('watched', iterationStart('watched', index));
      }
      return payloads;
    });
    expect(received.map((payload) => JSON.parse(payload))).toEqual([
      { schema: 'public', runId: 'watched', seq: 1 },
      { schema: 'public', runId: 'watched', seq: 2 },
      { schema: 'public', runId: 'watched', seq: 3 },
    ]);
  });

  it('announces nothing for an append that fails', async () => {
    const received = await withClient(database.url, async (listener) => {
      const payloads: string[] = [];
      listener.on('notification', (message) => payloads.push(message.payload ?? ''));
      await listener.query(`LISTEN ${RUN_EVENTS_CHANNEL}`);
      await expect(
        stores[0]!.runs.appendEvent('missing', iterationStart('missing', 0)),
      ).rejects.toThrow(expect.objectContaining({ code: 'memory.not_found' }));
      // A notification sent before this query's answer would have arrived before it.
      await listener.query('SELECT 1');
      return payloads;
    });
    expect(received).toEqual([]);
  });
});

/** Resolves with the first `count` payloads `client` receives (it must LISTEN afterwards). */
function collectNotifications(client: pg.Client, count: number): Promise<string[]> {
  return new Promise((resolve) => {
    const payloads: string[] = [];
    client.on('notification', (message) => {
      payloads.push(message.payload ?? '');
      if (payloads.length === count) resolve(payloads);
    });
  });
}
