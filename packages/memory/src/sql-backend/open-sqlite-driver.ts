import { RlmError } from '@rlm/protocol';
import Database from 'better-sqlite3';
import type { SqlDriver, SqlExecutor, SqlValue } from './sql-driver.js';
import { SQLITE_MIGRATIONS, SQLITE_SCHEMA_VERSION } from './sqlite-migrations.js';

/** How to open a SQLite file. */
export interface SqliteDriverOptions {
  path: string;
  busyTimeoutMs: number;
  synchronous: 'normal' | 'full';
}

/**
 * Opens (creating if needed) a SQLite file in WAL mode with foreign keys on and a busy timeout,
 * then brings its schema up to date in one immediate transaction (so two processes opening a
 * new file at once do not both migrate).
 *
 * better-sqlite3 is synchronous, and each of our async operations runs its statements without
 * yielding except between statements of a transaction; calls are therefore chained on one queue
 * so a transaction's statements are never interleaved with another caller's.
 *
 * @throws RlmError `memory.schema_too_new` when the file was written by a newer version,
 * `memory.storage_failed` when the file cannot be opened
 */
export function openSqliteDriver({ path, busyTimeoutMs, synchronous }: SqliteDriverOptions): SqlDriver {
  const db = openDatabase(path, busyTimeoutMs);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    db.pragma(`synchronous = ${synchronous.toUpperCase()}`);
    migrate(db);
  } catch (error) {
    db.close();
    throw RlmError.is(error) ? error : storageFailed('open', error);
  }
  return new SqliteDriver(db);
}

function openDatabase(path: string, busyTimeoutMs: number): Database.Database {
  try {
    return new Database(path, { timeout: busyTimeoutMs });
  } catch (error) {
    throw storageFailed('open', error);
  }
}

function migrate(db: Database.Database): void {
  db.transaction(() => {
    const fileVersion = Number(db.pragma('user_version', { simple: true }));
    if (fileVersion > SQLITE_SCHEMA_VERSION) {
      throw new RlmError({
        code: 'memory.schema_too_new',
        message: `The database was written by a newer @rlm/memory (schema ${fileVersion}; this version supports up to ${SQLITE_SCHEMA_VERSION}). Upgrade @rlm/memory to open it.`,
        details: { fileVersion, supportedVersion: SQLITE_SCHEMA_VERSION },
      });
    }
    for (const migration of SQLITE_MIGRATIONS) {
      if (migration.version > fileVersion) db.exec(migration.sql);
    }
    if (fileVersion < SQLITE_SCHEMA_VERSION) db.pragma(`user_version = ${SQLITE_SCHEMA_VERSION}`);
  }).immediate();
}

function storageFailed(operation: string, cause: unknown): RlmError<'memory.storage_failed'> {
  const busy = typeof cause === 'object' && cause !== null && 'code' in cause && cause.code === 'SQLITE_BUSY';
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new RlmError({
    code: 'memory.storage_failed',
    message: `SQLite ${operation} failed: ${reason}`,
    details: { operation },
    retryable: busy,
    cause,
  });
}

/** Names a statement for errors by its first words (`INSERT INTO run_events`). */
function describeStatement(sql: string): string {
  return sql.trim().split(/\s+/).slice(0, 3).join(' ');
}

class SqliteExecutor implements SqlExecutor {
  readonly #db: Database.Database;
  readonly #statements = new Map<string, Database.Statement>();

  constructor(db: Database.Database) {
    this.#db = db;
  }

  async all<TRow>(sql: string, params: readonly SqlValue[] = []): Promise<TRow[]> {
    return this.allNow<TRow>(sql, params);
  }

  async get<TRow>(sql: string, params: readonly SqlValue[] = []): Promise<TRow | undefined> {
    return this.allNow<TRow>(sql, params)[0];
  }

  async run(sql: string, params: readonly SqlValue[] = []): Promise<{ changes: number }> {
    return this.#guard(sql, () => ({ changes: this.#prepare(sql).run(...params).changes }));
  }

  allNow<TRow>(sql: string, params: readonly SqlValue[]): TRow[] {
    return this.#guard(sql, () => this.#prepare(sql).all(...params) as TRow[]);
  }

  #prepare(sql: string): Database.Statement {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  #guard<T>(sql: string, work: () => T): T {
    try {
      return work();
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

  constructor(db: Database.Database) {
    this.#db = db;
    this.#executor = new SqliteExecutor(db);
  }

  all<TRow>(sql: string, params?: readonly SqlValue[]): Promise<TRow[]> {
    return this.#enqueue('query', () => this.#executor.all<TRow>(sql, params));
  }

  get<TRow>(sql: string, params?: readonly SqlValue[]): Promise<TRow | undefined> {
    return this.#enqueue('query', () => this.#executor.get<TRow>(sql, params));
  }

  run(sql: string, params?: readonly SqlValue[]): Promise<{ changes: number }> {
    return this.#enqueue('statement', () => this.#executor.run(sql, params));
  }

  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
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
