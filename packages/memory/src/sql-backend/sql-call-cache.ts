import type { BackendContext } from '../backend-context.js';
import type {
  CachedCall,
  CachedCallInput,
  CallCacheGetOptions,
  CallCacheStats,
  CallCacheStore,
} from '../call-cache-store.js';
import type { SqlDriver } from './sql-driver.js';

const COLUMNS = `key, response, paid_by_run_id AS "paidByRunId", cost_usd AS "costUsd",
  tokens, created_at AS "createdAt"`;

interface Row {
  key: string;
  response: string;
  paidByRunId: string;
  costUsd: number | string;
  tokens: number | string;
  createdAt: number | string;
}

interface StatsRow {
  entries: number | string;
  hits: number | string | null;
  savedCostUsd: number | string | null;
  savedTokens: number | string | null;
  responseChars: number | string | null;
  oldestAt: number | string | null;
  newestAt: number | string | null;
}

/**
 * The sub-call cache in the `call_cache` table (SQLite or Postgres): every process on the same
 * file or database reads what the others stored. A read is one statement that counts the hit
 * and returns the row, so the cache costs one round trip per call.
 */
export class SqlCallCache implements CallCacheStore {
  readonly #driver: SqlDriver;
  readonly #context: BackendContext;

  constructor(driver: SqlDriver, context: BackendContext) {
    this.#driver = driver;
    this.#context = context;
  }

  async get(key: string, options: CallCacheGetOptions = {}): Promise<CachedCall | undefined> {
    this.#context.assertOpen('callCache.get');
    const oldest = options.maxAgeMs === undefined ? -1 : this.#context.now() - options.maxAgeMs;
    const row = await this.#driver.get<Row>(
      `UPDATE call_cache SET hits = hits + 1 WHERE key = ? AND created_at >= ? RETURNING ${COLUMNS}`,
      [key, oldest],
    );
    return row === undefined ? undefined : toCachedCall(row);
  }

  async put(input: CachedCallInput): Promise<void> {
    this.#context.assertOpen('callCache.put');
    await this.#driver.run(
      `INSERT INTO call_cache (key, response, paid_by_run_id, cost_usd, tokens, created_at, hits)
       VALUES (?, ?, ?, ?, ?, ?, 0)
       ON CONFLICT (key) DO UPDATE SET response = excluded.response,
         paid_by_run_id = excluded.paid_by_run_id, cost_usd = excluded.cost_usd,
         tokens = excluded.tokens, created_at = excluded.created_at, hits = 0`,
      [
        input.key,
        input.response,
        input.paidByRunId,
        input.costUsd,
        input.tokens,
        this.#context.now(),
      ],
    );
  }

  async stats(): Promise<CallCacheStats> {
    this.#context.assertOpen('callCache.stats');
    const row = await this.#driver.get<StatsRow>(
      `SELECT COUNT(*) AS entries, SUM(hits) AS hits, SUM(hits * cost_usd) AS "savedCostUsd",
         SUM(hits * tokens) AS "savedTokens", SUM(LENGTH(response)) AS "responseChars",
         MIN(created_at) AS "oldestAt", MAX(created_at) AS "newestAt"
       FROM call_cache`,
    );
    return {
      entries: Number(row?.entries ?? 0),
      hits: Number(row?.hits ?? 0),
      savedCostUsd: Number(row?.savedCostUsd ?? 0),
      savedTokens: Number(row?.savedTokens ?? 0),
      responseChars: Number(row?.responseChars ?? 0),
      oldestAt: row?.oldestAt == null ? null : Number(row.oldestAt),
      newestAt: row?.newestAt == null ? null : Number(row.newestAt),
    };
  }

  async clear(options: { storedBefore?: number | undefined } = {}): Promise<number> {
    this.#context.assertOpen('callCache.clear');
    const { changes } =
      options.storedBefore === undefined
        ? await this.#driver.run('DELETE FROM call_cache')
        : await this.#driver.run('DELETE FROM call_cache WHERE created_at < ?', [
            options.storedBefore,
          ]);
    return changes;
  }
}

/** Postgres returns BIGINT and DOUBLE columns as strings or numbers by type; SQLite as numbers. */
function toCachedCall(row: Row): CachedCall {
  return {
    key: row.key,
    response: row.response,
    paidByRunId: row.paidByRunId,
    costUsd: Number(row.costUsd),
    tokens: Number(row.tokens),
    createdAt: Number(row.createdAt),
  };
}
