import type { CallCacheStore } from '@rlm/memory';

/**
 * A sub-call cache in this process's memory, for as long as it is referenced: what a runner uses
 * for `cache: { store: 'memory' }` when its door gives none, and what a door passes as
 * `callCaches.memory` to share one cache between runners (an eval's attempts each have their own).
 */
export async function memoryCallCache(): Promise<CallCacheStore> {
  const { createStore } = await import('@rlm/memory');
  const store = await createStore({ kind: 'memory' });
  return store.callCache;
}
