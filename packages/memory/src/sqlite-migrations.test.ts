import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_POLICY } from './__fixtures__/open-test-store.js';
import { iterationStart } from './__fixtures__/run-events.js';
import { createStore } from './create-store.js';
import { SQLITE_SCHEMA_VERSION } from './sql-backend/sqlite-migrations.js';

/** The version-1 schema as it shipped, written out here so the test does not depend on the code. */
const V1_SCHEMA = `
  CREATE TABLE scratchpad (agent_id TEXT NOT NULL, key TEXT NOT NULL, type TEXT NOT NULL,
    summary TEXT NOT NULL, raw TEXT NOT NULL, created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL, write_seq INTEGER NOT NULL, PRIMARY KEY (agent_id, key));
  CREATE INDEX scratchpad_by_write ON scratchpad (agent_id, write_seq);
  CREATE TABLE conversation_senders (agent_id TEXT NOT NULL, sender_id TEXT NOT NULL,
    last_activity_at INTEGER NOT NULL, activity_seq INTEGER NOT NULL,
    PRIMARY KEY (agent_id, sender_id));
  CREATE INDEX conversation_senders_by_activity ON conversation_senders (agent_id, activity_seq);
  CREATE TABLE conversation_exchanges (id INTEGER PRIMARY KEY AUTOINCREMENT,
    agent_id TEXT NOT NULL, sender_id TEXT NOT NULL, message_id TEXT NOT NULL,
    sender_body TEXT NOT NULL, agent_reply TEXT NOT NULL, turn_id TEXT NOT NULL, at INTEGER NOT NULL,
    FOREIGN KEY (agent_id, sender_id) REFERENCES conversation_senders (agent_id, sender_id)
      ON DELETE CASCADE);
  CREATE INDEX conversation_exchanges_by_sender ON conversation_exchanges (agent_id, sender_id, id);
  CREATE TABLE runs (id TEXT PRIMARY KEY, parent_id TEXT, status TEXT NOT NULL,
    config TEXT NOT NULL, usage TEXT NOT NULL, created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL, ended_at INTEGER);
  CREATE TABLE run_events (run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL, event TEXT NOT NULL, PRIMARY KEY (run_id, seq)) WITHOUT ROWID;
`;

describe('SQLite schema versions', () => {
  let directory: string;
  let path: string;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'rlm-memory-migrate-'));
    path = join(directory, 'store.db');
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  function writeV1File() {
    const db = new Database(path);
    db.exec(V1_SCHEMA);
    db.prepare('INSERT INTO scratchpad VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(
      'default',
      'kept',
      'note',
      'from v1',
      '{"n":1}',
      5,
      5,
      1,
    );
    db.prepare('INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(
      'old',
      null,
      'running',
      '{}',
      '{"models":{}}',
      5,
      5,
      null,
    );
    db.prepare('INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(
      'owned',
      null,
      'completed',
      '{"owner":"key_a","query":"q"}',
      '{"models":{}}',
      6,
      6,
      6,
    );
    db.prepare('INSERT INTO run_events VALUES (?, ?, ?)').run(
      'old',
      1,
      JSON.stringify(iterationStart('old', 0)),
    );
    db.pragma('user_version = 1');
    db.close();
  }

  it('creates a new file at the current version', async () => {
    const store = await createStore({ kind: 'sqlite', path, promptLayers: TEST_POLICY });
    await store.close();
    const db = new Database(path, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(SQLITE_SCHEMA_VERSION);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
  });

  it('migrates once when two connections open a new file at the same time', async () => {
    const stores = await Promise.all([
      createStore({ kind: 'sqlite', path, promptLayers: TEST_POLICY }),
      createStore({ kind: 'sqlite', path, promptLayers: TEST_POLICY }),
    ]);
    await stores[0].runs.createRun({ id: 'r' });
    expect(await stores[1].runs.getRun('r')).toMatchObject({ id: 'r' });
    for (const store of stores) await store.close();
  });

  it('opens a private in-memory SQLite database for path :memory:', async () => {
    const store = await createStore({
      kind: 'sqlite',
      path: ':memory:',
      promptLayers: TEST_POLICY,
    });
    await store.scratchpad.set('k', { type: 't', summary: '', raw: 1 });
    expect(await store.scratchpad.get('k')).toMatchObject({ raw: 1 });
    await store.close();
  });

  it('upgrades a version-1 file in place, keeping its data and adding the new tables', async () => {
    writeV1File();
    const store = await createStore({ kind: 'sqlite', path, promptLayers: TEST_POLICY });
    try {
      expect(await store.scratchpad.get('kept')).toMatchObject({
        summary: 'from v1',
        raw: { n: 1 },
      });
      expect(await store.runs.eventsAfter('old', 0)).toEqual([
        { seq: 1, event: iterationStart('old', 0) },
      ]);
      expect(await store.runs.appendEvent('old', iterationStart('old', 1))).toBe(2);
      // Tables added by version 2 work on the upgraded file.
      await store.runs.saveCheckpoint('old', 1, { ok: true });
      expect(await store.runs.latestCheckpoint('old')).toMatchObject({ turn: 1 });
      expect((await store.promptLayers.get(6)).content).toBe('seed six');
      // Version 3 carries a run's config owner into the owner column.
      const owned = await store.runs.listRuns({ owner: 'key_a' });
      expect(owned.runs.map((run) => [run.id, run.owner])).toEqual([['owned', 'key_a']]);
      expect(await store.runs.getRun('old')).toMatchObject({ owner: null });
    } finally {
      await store.close();
    }
    const db = new Database(path, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(SQLITE_SCHEMA_VERSION);
    db.close();
  });

  it('refuses a file from a newer version with memory.schema_too_new and leaves it untouched', async () => {
    const db = new Database(path);
    db.pragma(`user_version = ${SQLITE_SCHEMA_VERSION + 7}`);
    db.close();
    await expect(createStore({ kind: 'sqlite', path, promptLayers: TEST_POLICY })).rejects.toThrow(
      expect.objectContaining({
        code: 'memory.schema_too_new',
        details: {
          fileVersion: SQLITE_SCHEMA_VERSION + 7,
          supportedVersion: SQLITE_SCHEMA_VERSION,
        },
      }),
    );
    const after = new Database(path, { readonly: true });
    expect(after.pragma('user_version', { simple: true })).toBe(SQLITE_SCHEMA_VERSION + 7);
    expect(after.pragma('journal_mode', { simple: true })).toBe('delete');
    expect(
      after.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get(),
    ).toEqual({ n: 0 });
    after.close();
  });

  it('reports a row whose JSON no longer matches its schema as memory.storage_failed', async () => {
    const store = await createStore({ kind: 'sqlite', path, promptLayers: TEST_POLICY });
    try {
      await store.runs.createRun({ id: 'r' });
      await store.runs.appendEvent('r', iterationStart('r', 0));
      const db = new Database(path);
      db.prepare("UPDATE run_events SET event = json_set(event, '$.iteration', 'one')").run();
      db.close();
      await expect(store.runs.eventsAfter('r', 0)).rejects.toThrow(
        expect.objectContaining({
          code: 'memory.storage_failed',
          message: expect.stringMatching(/iteration/),
        }),
      );
    } finally {
      await store.close();
    }
  });
});
