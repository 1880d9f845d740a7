import { createTestDatabase, type TestDatabase, withClient } from '@rlm/testkit/postgres';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { POSTGRES, TEST_POLICY } from './__fixtures__/open-test-store.js';
import { iterationStart } from './__fixtures__/run-events.js';
import { createStore } from './create-store.js';
import {
  POSTGRES_MIGRATIONS,
  POSTGRES_SCHEMA_VERSION,
} from './postgres-backend/postgres-migrations.js';

function open(url: string) {
  return createStore({ kind: 'postgres', url, promptLayers: TEST_POLICY });
}

async function appliedVersions(url: string): Promise<number[]> {
  return withClient(url, async (client) => {
    const result = await client.query<{ version: number }>(
      'SELECT version FROM rlm_schema_migrations ORDER BY version',
    );
    return result.rows.map((row) => row.version);
  });
}

async function tableNames(url: string): Promise<string[]> {
  return withClient(url, async (client) => {
    const result = await client.query<{ name: string }>(
      "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename",
    );
    return result.rows.map((row) => row.name);
  });
}

describe.skipIf(POSTGRES.url === null)('Postgres schema versions', () => {
  let database: TestDatabase;
  beforeEach(async () => {
    database = await createTestDatabase();
  });
  afterEach(() => database.drop());

  it('creates every table in an empty database and records each version', async () => {
    const store = await open(database.url);
    await store.close();
    expect(await appliedVersions(database.url)).toEqual(
      POSTGRES_MIGRATIONS.map((migration) => migration.version),
    );
    expect(await tableNames(database.url)).toEqual([
      'call_cache',
      'conversation_exchanges',
      'conversation_senders',
      'memory_items',
      'prompt_layer_proposals',
      'prompt_layers',
      'rlm_schema_migrations',
      'run_checkpoints',
      'run_events',
      'run_leases',
      'run_trajectory',
      'runs',
      'scratchpad',
    ]);
  });

  it('migrates once when several stores open an empty database at the same time', async () => {
    const stores = await Promise.all([open(database.url), open(database.url), open(database.url)]);
    await stores[0].runs.createRun({ id: 'r' });
    expect(await stores[2].runs.getRun('r')).toMatchObject({ id: 'r' });
    for (const store of stores) await store.close();
    expect(await appliedVersions(database.url)).toHaveLength(POSTGRES_SCHEMA_VERSION);
  });

  it('upgrades a version-1 database in place, keeping its rows', async () => {
    await withClient(database.url, async (client) => {
      await client.query(POSTGRES_MIGRATIONS[0]?.sql ?? '');
      await client.query(
        'CREATE TABLE rlm_schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
      );
      await client.query('INSERT INTO rlm_schema_migrations (version) VALUES (1)');
      await client.query(
        `INSERT INTO runs (id, parent_id, owner, status, config, usage, created_at, updated_at, ended_at)
         VALUES ('old', NULL, 'key_a', 'running', '{"owner":"key_a"}', '{"models":{}}', 5, 5, NULL)`,
      );
      await client.query('INSERT INTO run_events (run_id, seq, event) VALUES ($1, 1, $2)', [
        'old',
        JSON.stringify(iterationStart('old', 0)),
      ]);
    });
    const store = await open(database.url);
    try {
      expect(await store.runs.eventsAfter('old', 0)).toEqual([
        { seq: 1, event: iterationStart('old', 0) },
      ]);
      expect(await store.runs.appendEvent('old', iterationStart('old', 1))).toBe(2);
      const owned = await store.runs.listRuns({ owner: 'key_a' });
      expect(owned.runs.map((run) => run.id)).toEqual(['old']);
    } finally {
      await store.close();
    }
    expect(await appliedVersions(database.url)).toEqual([1, 2, 3, 4, 5]);
    const triggers = await withClient(database.url, (client) =>
      client.query("SELECT tgname FROM pg_trigger WHERE tgname = 'run_events_announce'"),
    );
    expect(triggers.rowCount).toBe(1);
  });

  it('refuses a database from a newer version with memory.schema_too_new and writes nothing', async () => {
    await withClient(database.url, async (client) => {
      await client.query('CREATE TABLE rlm_schema_migrations (version INTEGER PRIMARY KEY)');
      await client.query('INSERT INTO rlm_schema_migrations VALUES ($1)', [
        POSTGRES_SCHEMA_VERSION + 7,
      ]);
    });
    await expect(open(database.url)).rejects.toThrow(
      expect.objectContaining({
        code: 'memory.schema_too_new',
        details: {
          fileVersion: POSTGRES_SCHEMA_VERSION + 7,
          supportedVersion: POSTGRES_SCHEMA_VERSION,
        },
      }),
    );
    expect(await tableNames(database.url)).toEqual(['rlm_schema_migrations']);
    expect(await appliedVersions(database.url)).toEqual([POSTGRES_SCHEMA_VERSION + 7]);
  });

  it('keeps its tables in the schema the URL selects with search_path', async () => {
    await withClient(database.url, (client) => client.query('CREATE SCHEMA agents'));
    const url = new URL(database.url);
    url.searchParams.set('options', '-c search_path=agents');
    const store = await open(url.toString());
    await store.runs.createRun({ id: 'r' });
    await store.close();
    expect(await tableNames(database.url)).toEqual([]);
    const rows = await withClient(database.url, (client) =>
      client.query<{ id: string }>('SELECT id FROM agents.runs'),
    );
    expect(rows.rows).toEqual([{ id: 'r' }]);
  });

  it('reports a row whose JSON no longer matches its schema as memory.storage_failed', async () => {
    const store = await open(database.url);
    try {
      await store.runs.createRun({ id: 'r' });
      await store.runs.appendEvent('r', iterationStart('r', 0));
      await withClient(database.url, (client) =>
        client.query(
          `UPDATE run_events SET event = '{"v":1,"type":"iteration-start","iteration":"one"}'`,
        ),
      );
      await expect(store.runs.eventsAfter('r', 0)).rejects.toThrow(
        expect.objectContaining({ code: 'memory.storage_failed' }),
      );
    } finally {
      await store.close();
    }
  });
});
