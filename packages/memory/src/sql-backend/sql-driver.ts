/** A value a SQL parameter or column can hold. */
export type SqlValue = string | number | bigint | null;

/**
 * Runs statements with `?` placeholders. Store queries are written against this interface in SQL
 * that SQLite and Postgres both accept (`ON CONFLICT`, `RETURNING`, `CAST(? AS TEXT)` where a
 * parameter's type cannot be inferred, quoted camel-case aliases); only migrations are
 * dialect-specific.
 */
export interface SqlExecutor {
  all<TRow>(sql: string, params?: readonly SqlValue[]): Promise<TRow[]>;
  get<TRow>(sql: string, params?: readonly SqlValue[]): Promise<TRow | undefined>;
  run(sql: string, params?: readonly SqlValue[]): Promise<{ changes: number }>;
  /** A statement in the database's own SQL (placeholders as it writes them), for callers' SQL. */
  native(sql: string, params?: readonly unknown[]): Promise<{ rows: unknown[] }>;
}

/** What a write transaction serialises against. */
export interface TransactionOptions {
  /**
   * Names the data the transaction reads and then writes (`run:<id>`, `scratchpad:<agent>`):
   * transactions with the same lock never overlap, in this process or another. SQLite already
   * serialises every write transaction; Postgres takes a transaction-scoped advisory lock, so
   * numbering like `MAX(seq) + 1` never hands out one number twice. Several names are taken
   * in sorted order, so two transactions naming the same ones cannot deadlock.
   */
  lock: string | readonly string[];
}

/** A connection: statements, plus transactions that are serialised with every other call. */
export interface SqlDriver extends SqlExecutor {
  /**
   * Runs `work` in one write transaction: all its statements commit together or not at all.
   * Statements inside must use `tx`; calling the driver itself from `work` would wait forever.
   */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>, options: TransactionOptions): Promise<T>;
  /** Closes the connection after pending calls; later calls reject with `memory.storage_failed`. */
  close(): Promise<void>;
}
