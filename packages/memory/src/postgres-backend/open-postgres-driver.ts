import { RlmError } from '@rlm/protocol';
import type { CustomTypesConfig, Pool, PoolClient } from 'pg';
import { loadOptionalPeer } from '../load-optional-peer.js';
import type {
  SqlDriver,
  SqlExecutor,
  SqlValue,
  TransactionOptions,
} from '../sql-backend/sql-driver.js';
import { migratePostgres } from './migrate-postgres.js';
import { postgresStorageError } from './postgres-storage-error.js';
import { toNumberedPlaceholders } from './to-numbered-placeholders.js';

/** How to reach a Postgres database. */
export interface PostgresDriverOptions {
  /** `postgres://user:password@host:port/database` (libpq URL syntax, as `pg` reads it). */
  url: string;
  /** Connections kept open at most. */
  poolSize: number;
  /** How long opening a connection may take before the call fails. */
  connectTimeoutMs: number;
}

/** Type OIDs whose default `pg` parsing the stores cannot use (see `createTypeParsers`). */
const INT8_OID = 20;
const JSON_OID = 114;

/**
 * Connects a pool to `url` and migrates the database (see `migratePostgres`). Transactions run
 * on one pooled connection at READ COMMITTED, after `pg_advisory_xact_lock` on their lock name:
 * writers of the same run or agent queue up, in this process and in every other one, while
 * everything else runs in parallel.
 *
 * @throws RlmError `config.invalid` when `pg` is not installed, `memory.schema_too_new`
 * when the database is from a newer version, `memory.storage_failed` when it cannot be reached
 */
export async function openPostgresDriver({
  url,
  poolSize,
  connectTimeoutMs,
}: PostgresDriverOptions): Promise<SqlDriver> {
  const { default: pg } = await loadOptionalPeer({
    packageName: 'pg',
    kind: 'postgres',
    load: () => import('pg'),
  });
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: connectTimeoutMs,
    types: createTypeParsers(pg.types),
  });
  // An idle pooled connection that the server drops emits 'error' on the pool; without a
  // listener that would crash the process. The pool discards that connection by itself, and
  // the next query opens a new one, so there is nothing else to do here.
  pool.on('error', () => undefined);
  try {
    const client = await pool.connect();
    try {
      await migratePostgres(client);
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw postgresStorageError('open', error);
  }
  return new PostgresDriver(pool);
}

/**
 * BIGINT and COUNT(*) come back as numbers (pg returns strings, for values past 2^53 that the
 * stores never produce), and `json` columns as their text, which the stores parse and validate
 * themselves (as with SQLite). Given per pool, so no other `pg` user in the process is affected.
 */
function createTypeParsers(types: CustomTypesConfig): CustomTypesConfig {
  return {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
      if (oid === INT8_OID) return Number;
      if (oid === JSON_OID) return (text: string) => text;
      return types.getTypeParser(oid, format);
    }) as CustomTypesConfig['getTypeParser'],
  };
}

/** Describes a statement for errors by its first words (`INSERT INTO run_events`). */
function describeStatement(sql: string): string {
  return sql.trim().split(/\s+/).slice(0, 3).join(' ');
}

/** Anything with `pg`'s `query(text, values)`: the pool itself, or one checked-out connection. */
interface Queryable {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

class PostgresExecutor implements SqlExecutor {
  readonly #target: Queryable;
  readonly #translated: Map<string, string>;

  constructor(target: Queryable, translated: Map<string, string>) {
    this.#target = target;
    this.#translated = translated;
  }

  async all<TRow>(sql: string, params: readonly SqlValue[] = []): Promise<TRow[]> {
    return (await this.#query(sql, params)).rows as TRow[];
  }

  async get<TRow>(sql: string, params: readonly SqlValue[] = []): Promise<TRow | undefined> {
    return (await this.all<TRow>(sql, params))[0];
  }

  async run(sql: string, params: readonly SqlValue[] = []): Promise<{ changes: number }> {
    return { changes: (await this.#query(sql, params)).rowCount ?? 0 };
  }

  async native(sql: string, params: readonly unknown[] = []): Promise<{ rows: unknown[] }> {
    try {
      return { rows: (await this.#target.query(sql, [...params])).rows };
    } catch (error) {
      throw postgresStorageError(describeStatement(sql), error);
    }
  }

  async #query(sql: string, params: readonly SqlValue[]) {
    let text = this.#translated.get(sql);
    if (text === undefined) {
      text = toNumberedPlaceholders(sql);
      this.#translated.set(sql, text);
    }
    try {
      return await this.#target.query(
        text,
        params.map((value) => (typeof value === 'bigint' ? value.toString() : value)),
      );
    } catch (error) {
      throw postgresStorageError(describeStatement(sql), error);
    }
  }
}

class PostgresDriver implements SqlDriver {
  readonly #pool: Pool;
  /** Store SQL is a fixed set of strings, so their `$n` forms are computed once. */
  readonly #translated = new Map<string, string>();
  readonly #executor: PostgresExecutor;
  #active = 0;
  #closing = false;
  #whenIdle: (() => void) | undefined;
  #closed: Promise<void> | undefined;

  constructor(pool: Pool) {
    this.#pool = pool;
    this.#executor = new PostgresExecutor(pool, this.#translated);
  }

  all<TRow>(sql: string, params?: readonly SqlValue[]): Promise<TRow[]> {
    return this.#track('query', () => this.#executor.all<TRow>(sql, params));
  }

  get<TRow>(sql: string, params?: readonly SqlValue[]): Promise<TRow | undefined> {
    return this.#track('query', () => this.#executor.get<TRow>(sql, params));
  }

  run(sql: string, params?: readonly SqlValue[]): Promise<{ changes: number }> {
    return this.#track('statement', () => this.#executor.run(sql, params));
  }

  native(sql: string, params?: readonly unknown[]): Promise<{ rows: unknown[] }> {
    return this.#track('statement', () => this.#executor.native(sql, params));
  }

  transaction<T>(work: (tx: SqlExecutor) => Promise<T>, { lock }: TransactionOptions): Promise<T> {
    return this.#track('transaction', async () => {
      const client = await this.#connect();
      const tx = new PostgresExecutor(client, this.#translated);
      let broken: Error | undefined;
      try {
        await tx.run('BEGIN');
        for (const name of typeof lock === 'string' ? [lock] : [...lock].sort()) {
          await tx.run('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [name]);
        }
        const result = await work(tx);
        await tx.run('COMMIT');
        return result;
      } catch (error) {
        try {
          await client.query('ROLLBACK');
        } catch (rollbackError) {
          // The connection is unusable; releasing it with the error makes the pool close it.
          broken =
            rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
        }
        throw postgresStorageError('transaction', error);
      } finally {
        client.release(broken);
      }
    });
  }

  close(): Promise<void> {
    this.#closed ??= this.#close();
    return this.#closed;
  }

  async #close(): Promise<void> {
    this.#closing = true;
    // pg's pool stops serving queued connection requests once it is ending, so calls already
    // started must finish before it is ended.
    if (this.#active > 0) {
      await new Promise<void>((resolve) => {
        this.#whenIdle = resolve;
      });
    }
    await this.#pool.end();
  }

  async #connect(): Promise<PoolClient> {
    try {
      return await this.#pool.connect();
    } catch (error) {
      throw postgresStorageError('connect', error);
    }
  }

  async #track<T>(operation: string, work: () => Promise<T>): Promise<T> {
    if (this.#closing) {
      throw new RlmError({
        code: 'memory.storage_failed',
        message: `Postgres ${operation} failed: the store is closed`,
        details: { operation },
      });
    }
    this.#active += 1;
    try {
      return await work();
    } finally {
      this.#active -= 1;
      if (this.#active === 0) this.#whenIdle?.();
    }
  }
}
