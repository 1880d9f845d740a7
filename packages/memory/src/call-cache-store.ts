/**
 * One stored answer of the sub-call cache. The store keeps the reply as JSON text and never reads
 * it: its shape is the executor's (`ModelResponse`), so a new field there needs no migration here.
 */
export interface CachedCall {
  /** The exact-match key (a hash of everything that changes the answer, scope included). */
  key: string;
  /** The reply as JSON text. */
  response: string;
  /** The run whose call paid for it. */
  paidByRunId: string;
  /** What the call cost (0 when its price was unknown). */
  costUsd: number;
  /** Its input + output tokens. */
  tokens: number;
  /** When it was stored (ms since the epoch, the store's clock). */
  createdAt: number;
}

/** What `put` takes: the store stamps the time. */
export type CachedCallInput = Omit<CachedCall, 'createdAt'>;

/** Totals over the whole cache. */
export interface CallCacheStats {
  entries: number;
  /** Reads that found a live entry since it was stored. */
  hits: number;
  /** The sum over entries of hits × cost: what the cache spared. */
  savedCostUsd: number;
  /** The sum over entries of hits × tokens. */
  savedTokens: number;
  /** Characters of stored replies. */
  responseChars: number;
  oldestAt: number | null;
  newestAt: number | null;
}

export interface CallCacheGetOptions {
  /** Entries older than this count as absent (the run's TTL, enforced on read). */
  maxAgeMs?: number | undefined;
}

/**
 * Stored answers of repeated model calls, shared by every process on the same database. A read
 * that finds a live entry counts one hit on it (for `stats`).
 */
export interface CallCacheStore {
  /** The live entry under `key`, counting the hit; undefined when absent or older than `maxAgeMs`. */
  get(key: string, options?: CallCacheGetOptions): Promise<CachedCall | undefined>;
  /** Stores (or replaces) the entry under `key`, with the hit count reset. */
  put(entry: CachedCallInput): Promise<void>;
  stats(): Promise<CallCacheStats>;
  /** Deletes every entry (or those stored before `olderThan`, ms since the epoch); returns how many. */
  clear(options?: { storedBefore?: number | undefined }): Promise<number>;
}
