import type { BackendContext } from '../backend-context.js';
import type {
  CachedCall,
  CachedCallInput,
  CallCacheGetOptions,
  CallCacheStats,
  CallCacheStore,
} from '../call-cache-store.js';

/** The in-process sub-call cache: one Map, gone with the store. */
export class MemoryCallCache implements CallCacheStore {
  readonly #context: BackendContext;
  readonly #entries = new Map<string, { call: CachedCall; hits: number }>();

  constructor(context: BackendContext) {
    this.#context = context;
  }

  async get(key: string, options: CallCacheGetOptions = {}): Promise<CachedCall | undefined> {
    this.#context.assertOpen('callCache.get');
    const entry = this.#entries.get(key);
    if (entry === undefined || isStale(entry.call, options, this.#context.now())) return undefined;
    entry.hits += 1;
    return { ...entry.call };
  }

  async put(input: CachedCallInput): Promise<void> {
    this.#context.assertOpen('callCache.put');
    this.#entries.set(input.key, { call: { ...input, createdAt: this.#context.now() }, hits: 0 });
  }

  async stats(): Promise<CallCacheStats> {
    this.#context.assertOpen('callCache.stats');
    const stats: CallCacheStats = {
      entries: 0,
      hits: 0,
      savedCostUsd: 0,
      savedTokens: 0,
      responseChars: 0,
      oldestAt: null,
      newestAt: null,
    };
    for (const { call, hits } of this.#entries.values()) {
      stats.entries += 1;
      stats.hits += hits;
      stats.savedCostUsd += hits * call.costUsd;
      stats.savedTokens += hits * call.tokens;
      stats.responseChars += call.response.length;
      stats.oldestAt = Math.min(stats.oldestAt ?? call.createdAt, call.createdAt);
      stats.newestAt = Math.max(stats.newestAt ?? call.createdAt, call.createdAt);
    }
    return stats;
  }

  async clear(options: { storedBefore?: number | undefined } = {}): Promise<number> {
    this.#context.assertOpen('callCache.clear');
    let deleted = 0;
    for (const [key, { call }] of this.#entries) {
      if (options.storedBefore !== undefined && call.createdAt >= options.storedBefore) continue;
      this.#entries.delete(key);
      deleted += 1;
    }
    return deleted;
  }
}

function isStale(call: CachedCall, { maxAgeMs }: CallCacheGetOptions, now: number): boolean {
  return maxAgeMs !== undefined && now - call.createdAt > maxAgeMs;
}
