import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TEST_POLICY } from './__fixtures__/open-test-store.js';
import { iterationStart } from './__fixtures__/run-events.js';
import { spawnWriter } from './__fixtures__/spawn-writer.js';
import { createStore } from './create-store.js';
import type { Store } from './store.js';

const LIMITS = { scratchpadEntries: 1_000_000, senders: 1_000_000, exchangesPerSender: 1_000_000 };

function open(path: string): Promise<Store> {
  return createStore({ kind: 'sqlite', path, limits: LIMITS, promptLayers: TEST_POLICY });
}

describe('SQLite durability and concurrency', () => {
  let directory: string;
  let path: string;

  beforeAll(() => {
    // The child process imports the built package, as a consumer would (turbo builds it first).
    const built = fileURLToPath(new URL('../dist/index.js', import.meta.url));
    expect(existsSync(built), `${built} missing: run the package build first`).toBe(true);
  });
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'rlm-memory-durability-'));
    path = join(directory, 'store.db');
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it('keeps one checkpoint row per run: a later turn supersedes the earlier ones', async () => {
    const store = await open(path);
    try {
      await store.runs.createRun({ id: 'long' });
      await store.runs.createRun({ id: 'other' });
      await store.runs.saveCheckpoint('other', 1, { turn: 1 });
      for (let turn = 0; turn < 20; turn++) {
        await store.runs.saveCheckpoint('long', turn, { messages: Array(turn).fill('m') });
      }
      expect(await store.runs.latestCheckpoint('long')).toMatchObject({ turn: 19 });
    } finally {
      await store.close();
    }
    const db = new Database(path, { readonly: true });
    const rows = db.prepare('SELECT run_id, turn FROM run_checkpoints ORDER BY run_id').all() as {
      run_id: string;
      turn: number;
    }[];
    db.close();
    expect(rows).toEqual([
      { run_id: 'long', turn: 19 },
      { run_id: 'other', turn: 1 },
    ]);
  });

  it('loses no acknowledged write when the writer is killed with SIGKILL mid-stream', {
    timeout: 120_000,
  }, async () => {
    const writer = spawnWriter(path, 0);
    await writer.waitForAcks(600);
    writer.child.kill('SIGKILL');
    expect(await writer.exited).toBe('SIGKILL');
    const acks = [...writer.acks];
    expect(acks.length).toBeGreaterThanOrEqual(600);

    const store = await open(path);
    try {
      const events = await store.runs.eventsAfter('writer', 0);
      const eventAcks = acks.filter((ack) => ack.kind === 'event');
      // Sequence numbers are contiguous from 1 and cover every acknowledged one.
      expect(events.map((entry) => entry.seq)).toEqual(events.map((_, index) => index + 1));
      expect(events.length).toBeGreaterThanOrEqual(eventAcks.length);
      for (const ack of eventAcks) expect(ack.seq).toBeLessThanOrEqual(events.length);
      for (const ack of acks) {
        if (ack.kind === 'scratchpad') expect(await store.scratchpad.get(ack.key)).toBeDefined();
        if (ack.kind === 'exchange') {
          const ids = (await store.conversations.get(ack.sender)).map(
            (exchange) => exchange.messageId,
          );
          expect(ids).toContain(ack.messageId);
        }
      }
      // The file is usable after the crash: the run accepts more events with the next number.
      expect(await store.runs.appendEvent('writer', iterationStart('writer', 0))).toBe(
        events.length + 1,
      );
    } finally {
      await store.close();
    }
  });

  it('lets another process read consistent snapshots while one writes', {
    timeout: 120_000,
  }, async () => {
    const writer = spawnWriter(path, 400);
    await writer.waitForAcks(1);
    const reader = await open(path);
    let reads = 0;
    let lastCount = 0;
    let running = true;
    const done = writer.exited.finally(() => {
      running = false;
    });
    try {
      while (running) {
        const events = await reader.runs.eventsAfter('writer', 0);
        expect(events.length).toBeGreaterThanOrEqual(lastCount);
        expect(events.at(-1)?.seq ?? 0).toBe(events.length);
        lastCount = events.length;
        reads++;
        await new Promise((resolve) => setImmediate(resolve));
      }
      await done;
      expect(reads).toBeGreaterThan(1);
      expect(await reader.runs.eventsAfter('writer', 0)).toHaveLength(400);
    } finally {
      await reader.close();
    }
  });

  it('shows one connection’s committed writes to a second connection on the same file', async () => {
    const first = await open(path);
    const second = await open(path);
    try {
      await first.runs.createRun({ id: 'shared' });
      await first.runs.appendEvent('shared', iterationStart('shared', 0));
      expect(await second.runs.eventsAfter('shared', 0)).toHaveLength(1);
      // Both connections append; sequence numbers stay unique and gap-free.
      const seqs = await Promise.all([
        first.runs.appendEvent('shared', iterationStart('shared', 1)),
        second.runs.appendEvent('shared', iterationStart('shared', 2)),
        first.runs.appendEvent('shared', iterationStart('shared', 3)),
      ]);
      expect([...seqs].sort()).toEqual([2, 3, 4]);
    } finally {
      await first.close();
      await second.close();
    }
  });
});
