import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RlmError } from '@rlm/protocol';
import { createTestDatabase, testPostgres } from '@rlm/testkit/postgres';
import { createStore } from '../create-store.js';
import type { PromptLayerPolicy } from '../prompt-layer-store.js';
import type { Store } from '../store.js';
import type { StoreLimits, StoreOptions } from '../store-options.js';

export type Backend = 'memory' | 'sqlite' | 'postgres';

/** The test Postgres server (started by `postgres-global-setup.ts`), or why there is none. */
export const POSTGRES = testPostgres();

/**
 * Every backend the store contract runs against. Postgres is left out only when its server could
 * not start outside CI (`postgres-availability.test.ts` then reports that as a skipped test).
 */
export const BACKENDS: readonly Backend[] =
  POSTGRES.url === null ? ['memory', 'sqlite'] : ['memory', 'sqlite', 'postgres'];

/** A small stand-in for @rlm/prompts' rules: a size cap and one forbidden phrase. */
export const TEST_POLICY: PromptLayerPolicy = {
  seeds: { 6: 'seed six', 7: 'seed seven', 8: 'seed eight', 9: 'seed nine' },
  validate(layerId, content) {
    if (content.length > 100) {
      return {
        ok: false,
        error: new RlmError({
          code: 'prompts.layer_too_long',
          message: 'too long',
          details: { layerId, length: content.length, max: 100 },
        }),
      };
    }
    if (/ignore layer 1/i.test(content)) {
      return {
        ok: false,
        error: new RlmError({
          code: 'prompts.layer_override_attempt',
          message: 'override',
          details: { layerId, phrase: 'ignore layer 1' },
        }),
      };
    }
    return { ok: true };
  },
};

/** A clock that only moves when told to (or by 1 ms per reading, when `autoStep`). */
export function createTestClock(start = 1_000_000) {
  let time = start;
  return {
    now: () => time,
    advance(ms: number) {
      time += ms;
    },
  };
}

export interface TestStore {
  store: Store;
  /** The SQLite file, or the Postgres database's URL; `undefined` in memory. */
  path: string | undefined;
  clock: ReturnType<typeof createTestClock>;
  reopen(): Promise<Store>;
  cleanup(): Promise<void>;
}

/**
 * Opens a store of `backend` with the test policy and clock: SQLite in a fresh temp directory,
 * Postgres in a fresh database of the test server (dropped by `cleanup`).
 */
export async function openTestStore(
  backend: Backend,
  limits: Partial<StoreLimits> = {},
  policy: PromptLayerPolicy = TEST_POLICY,
): Promise<TestStore> {
  const clock = createTestClock();
  const common = { limits, promptLayers: policy, now: clock.now };
  const place = await createPlace(backend);
  const options: StoreOptions =
    backend === 'memory'
      ? { kind: 'memory', ...common }
      : backend === 'sqlite'
        ? { kind: 'sqlite', path: place.path as string, ...common }
        : { kind: 'postgres', url: place.path as string, ...common };
  const opened: Store[] = [await createStore(options)];
  return {
    store: opened[0] as Store,
    path: place.path,
    clock,
    async reopen() {
      const store = await createStore(options);
      opened.push(store);
      return store;
    },
    async cleanup() {
      for (const store of opened) await store.close();
      await place.remove();
    },
  };
}

/** Where a backend's data lives for one test, and how to delete it. */
async function createPlace(
  backend: Backend,
): Promise<{ path: string | undefined; remove(): Promise<void> }> {
  if (backend === 'memory') return { path: undefined, remove: async () => undefined };
  if (backend === 'sqlite') {
    const directory = mkdtempSync(join(tmpdir(), 'rlm-memory-'));
    return {
      path: join(directory, 'store.db'),
      remove: async () => rmSync(directory, { recursive: true, force: true }),
    };
  }
  const database = await createTestDatabase();
  return { path: database.url, remove: () => database.drop() };
}
