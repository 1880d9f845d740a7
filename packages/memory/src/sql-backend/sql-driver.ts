/** A value a SQL parameter or column can hold. */
export type SqlValue = string | number | bigint | null;

/**
 * Runs statements with `?` placeholders. Store queries are written against this interface in
 * portable SQL (`ON CONFLICT`, `RETURNING`, no SQLite-only verbs) so a networked database
 * (Postgres, translating `?` to `$n`) can implement it; only migrations are dialect-specific.
 */
export interface SqlExecutor {
  all<TRow>(sql: string, params?: readonly SqlValue[]): Promise<TRow[]>;
  get<TRow>(sql: string, params?: readonly SqlValue[]): Promise<TRow | undefined>;
  run(sql: string, params?: readonly SqlValue[]): Promise<{ changes: number }>;
}

/** A connection: statements, plus transactions that are serialised with every other call. */
export interface SqlDriver extends SqlExecutor {
  /**
   * Runs `work` in one write transaction: all its statements commit together or not at all.
   * Statements inside must use `tx`; calling the driver itself from `work` would wait forever.
   */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /** Closes the connection after pending calls; later calls reject with `memory.storage_failed`. */
  close(): Promise<void>;
}
