import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RlmError } from '@rlm/protocol';
import { createStore } from '../create-store.js';
import type { PromptLayerPolicy } from '../prompt-layer-store.js';
import type { Store } from '../store.js';
import type { StoreLimits } from '../store-options.js';

export const BACKENDS = ['memory', 'sqlite'] as const;
export type Backend = (typeof BACKENDS)[number];

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
  path: string | undefined;
  clock: ReturnType<typeof createTestClock>;
  reopen(): Promise<Store>;
  cleanup(): Promise<void>;
}

/** Opens a store of `backend` (SQLite in a fresh temp directory) with the test policy and clock. */
export async function openTestStore(
  backend: Backend,
  limits: Partial<StoreLimits> = {},
  policy: PromptLayerPolicy = TEST_POLICY,
): Promise<TestStore> {
  const clock = createTestClock();
  const directory = backend === 'sqlite' ? mkdtempSync(join(tmpdir(), 'rlm-memory-')) : undefined;
  const path = directory === undefined ? undefined : join(directory, 'store.db');
  const open = () =>
    path === undefined
      ? createStore({ kind: 'memory', limits, promptLayers: policy, now: clock.now })
      : createStore({ kind: 'sqlite', path, limits, promptLayers: policy, now: clock.now });
  const opened: Store[] = [await open()];
  return {
    store: opened[0] as Store,
    path,
    clock,
    async reopen() {
      const store = await open();
      opened.push(store);
      return store;
    },
    async cleanup() {
      for (const store of opened) await store.close();
      if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
    },
  };
}
