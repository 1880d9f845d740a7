import { RlmError } from '@rlm/protocol';
import type Database from 'better-sqlite3';
import { loadOptionalPeer } from '../load-optional-peer.js';
import { migrateSqlite, readVersion } from './migrate-sqlite.js';
import { isBusyError, retryWhileBusy } from './retry-while-busy.js';
import type { SqlDriver, SqlExecutor, SqlValue, TransactionOptions } from './sql-driver.js';

/** How to open a SQLite file. */
export interface SqliteDriverOptions {
  path: string;
  busyTimeoutMs: number;
  synchronous: 'normal' | 'full';
}

/**
 * Opens (creating if needed) a SQLite file in WAL mode with foreign keys on, then brings its
 * schema up to date (see `migrateSqlite`). Lock waits use `retryWhileBusy` (an asynchronous busy
 * timeout) instead of SQLite's blocking handler, whose timeout is therefore set to 0.
 *
 * better-sqlite3 is synchronous, and our async operations yield between the statements of a
 * transaction; calls are therefore chained on one queue per connection so a transaction's
 * statements are never interleaved with another caller's.
 *
 * @throws RlmError `memory.schema_too_new` when the file was written by a newer version,
 * `memory.storage_failed` when the file cannot be opened
 */
export async function openSqliteDriver({
  path,
  busyTimeoutMs,
  synchronous,
}: SqliteDriverOptions): Promise<SqlDriver> {
  const { default: BetterSqlite3 } = await loadOptionalPeer({
    packageName: 'better-sqlite3',
    kind: 'sqlite',
    load: () => import('better-sqlite3'),
  });
  const db = openDatabase(BetterSqlite3, path);
  try {
    // A newer file is refused before it is touched (even switching it to WAL would write to it).
    readVersion(db);
    await retryWhileBusy(() => db.pragma('journal_mode = WAL'), busyTimeoutMs);
    db.pragma('foreign_keys = ON');
    db.pragma(`synchronous = ${synchronous.toUpperCase()}`);
    await migrateSqlite(db, busyTimeoutMs);
  } catch (error) {
    db.close();
    throw RlmError.is(error) ? error : storageFailed('open', error);
  }
  return new SqliteDriver(db, busyTimeoutMs);
}

function openDatabase(BetterSqlite3: typeof Database, path: string): Database.Database {
  try {
    return new BetterSqlite3(path, { timeout: 0 });
  } catch (error) {
    throw storageFailed('open', error);
  }
}

function storageFailed(operation: string, cause: unknown): RlmError<'memory.storage_failed'> {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new RlmError({
    code: 'memory.storage_failed',
    message: `SQLite ${operation} failed: ${reason}`,
    details: { operation },
    retryable: isBusyError(cause),
    cause,
  });
}

/** Names a statement for errors by its first words (`INSERT INTO run_events`). */
function describeStatement(sql: string): string {
  return sql.trim().split(/\s+/).slice(0, 3).join(' ');
}

class SqliteExecutor implements SqlExecutor {
  readonly #db: Database.Database;
  readonly #busyTimeoutMs: number;
  readonly #statements = new Map<string, Database.Statement>();

  constructor(db: Database.Database, busyTimeoutMs: number) {
    this.#db = db;
    this.#busyTimeoutMs = busyTimeoutMs;
  }

  all<TRow>(sql: string, params: readonly SqlValue[] = []): Promise<TRow[]> {
    return this.#guard(sql, () => this.#prepare(sql).all(...params) as TRow[]);
  }

  async get<TRow>(sql: string, params: readonly SqlValue[] = []): Promise<TRow | undefined> {
    return (await this.all<TRow>(sql, params))[0];
  }

  run(sql: string, params: readonly SqlValue[] = []): Promise<{ changes: number }> {
    return this.#guard(sql, () => ({ changes: this.#prepare(sql).run(...params).changes }));
  }

  native(sql: string, params: readonly unknown[] = []): Promise<{ rows: unknown[] }> {
    return this.#guard(sql, () => {
      const statement = this.#db.prepare(sql);
      return statement.reader
        ? { rows: statement.all(...params) }
        : (statement.run(...params), { rows: [] });
    });
  }

  #prepare(sql: string): Database.Statement {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  async #guard<T>(sql: string, work: () => T): Promise<T> {
    try {
      return await retryWhileBusy(work, this.#busyTimeoutMs);
    } catch (error) {
      throw RlmError.is(error) ? error : storageFailed(describeStatement(sql), error);
    }
  }
}

class SqliteDriver implements SqlDriver {
  readonly #db: Database.Database;
  readonly #executor: SqliteExecutor;
  /** Settles when the previous call finished; every call waits for it (see openSqliteDriver). */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(db: Database.Database, busyTimeoutMs: number) {
    this.#db = db;
    this.#executor = new SqliteExecutor(db, busyTimeoutMs);
  }

  all<TRow>(sql: string, params?: readonly SqlValue[]): Promise<TRow[]> {
    return this.#enqueue('query', () => this.#executor.all<TRow>(sql, params));
  }

  get<TRow>(sql: string, params?: readonly SqlValue[]): Promise<TRow | undefined> {
    return this.#enqueue('query', () => this.#executor.get<TRow>(sql, params));
  }

  native(sql: string, params?: readonly unknown[]): Promise<{ rows: unknown[] }> {
    return this.#enqueue('statement', () => this.#executor.native(sql, params));
  }

  run(sql: string, params?: readonly SqlValue[]): Promise<{ changes: number }> {
    return this.#enqueue('statement', () => this.#executor.run(sql, params));
  }

  /** The lock name is not needed: SQLite lets one write transaction run at a time. */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>, _options: TransactionOptions): Promise<T> {
    return this.#enqueue('transaction', async () => {
      // IMMEDIATE takes the write lock up front, so a transaction that reads then writes cannot
      // fail half-way with SQLITE_BUSY when another process writes in between.
      await this.#executor.run('BEGIN IMMEDIATE');
      try {
        const result = await work(this.#executor);
        await this.#executor.run('COMMIT');
        return result;
      } catch (error) {
        if (this.#db.inTransaction) this.#db.exec('ROLLBACK');
        throw error;
      }
    });
  }

  async close(): Promise<void> {
    // Queued so a transaction in progress finishes (or rolls back) before the file is closed.
    const close = async (): Promise<void> => {
      if (this.#db.open) this.#db.close();
    };
    const done = this.#queue.then(close, close);
    this.#queue = done.catch(() => undefined);
    await done;
  }

  #enqueue<T>(operation: string, work: () => Promise<T>): Promise<T> {
    const run = async (): Promise<T> => {
      if (!this.#db.open) {
        throw new RlmError({
          code: 'memory.storage_failed',
          message: `SQLite ${operation} failed: the store is closed`,
          details: { operation },
        });
      }
      return work();
    };
    const result = this.#queue.then(run, run);
    this.#queue = result.catch(() => undefined);
    return result;
  }
}
