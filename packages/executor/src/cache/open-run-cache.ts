import type { CallCacheStore } from '@rlm/memory';
import { RlmError, type RunCache } from '@rlm/protocol';

/** The cache stores a door offers its runs, by the settings' `cache.store` name. */
export type CallCacheStores = Readonly<Partial<Record<RunCache['store'], CallCacheStore>>>;

/**
 * The store a run's `cache` settings name. `memory` is always there (one per runner, made on
 * first use); `sqlite` and `postgres` only when the door has that database.
 * @throws RlmError `config.invalid` naming `cache.store` when the door has no such store
 */
export async function openRunCache(
  settings: RunCache,
  stores: CallCacheStores,
  memory: () => Promise<CallCacheStore>,
): Promise<CallCacheStore> {
  const store = stores[settings.store];
  if (store !== undefined) return store;
  if (settings.store === 'memory') return memory();
  const offered = ['memory', ...Object.keys(stores).filter((name) => name !== 'memory')];
  const issue = `cache.store: '${settings.store}' is not available here; expected one of ${offered.map((name) => `'${name}'`).join(', ')}`;
  throw new RlmError({
    code: 'config.invalid',
    message: `Invalid run settings: ${issue}`,
    details: { source: 'run settings', issues: [issue] },
  });
}
