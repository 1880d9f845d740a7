/**
 * The server's own tables in a shared Postgres (beside `@rlm/memory`'s, which hold runs, events,
 * agents' memory): uploaded contexts, API keys, rate-limit buckets and cross-replica run controls.
 * One entry per version, recorded in `rlm_server_migrations`; never edit a shipped entry.
 */
export const SERVER_MIGRATIONS: readonly { version: number; sql: string }[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE rlm_server_contexts (
        id TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        format TEXT NOT NULL,
        bytes BIGINT NOT NULL,
        sha256 TEXT NOT NULL,
        created_at TEXT NOT NULL,
        committed BOOLEAN NOT NULL,
        written_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE TABLE rlm_server_context_chunks (
        context_id TEXT NOT NULL REFERENCES rlm_server_contexts (id) ON DELETE CASCADE,
        n INTEGER NOT NULL,
        data BYTEA NOT NULL,
        PRIMARY KEY (context_id, n)
      );
      CREATE TABLE rlm_server_api_keys (
        id TEXT PRIMARY KEY,
        hash TEXT NOT NULL UNIQUE,
        record JSON NOT NULL
      );
      CREATE TABLE rlm_server_rate_buckets (
        key TEXT PRIMARY KEY,
        tokens DOUBLE PRECISION NOT NULL,
        at DOUBLE PRECISION NOT NULL
      );
      CREATE TABLE rlm_server_run_controls (
        run_id TEXT PRIMARY KEY,
        action TEXT NOT NULL,
        at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
    `,
  },
];

/** The version this build writes; a database at a higher version is refused. */
export const SERVER_SCHEMA_VERSION = SERVER_MIGRATIONS.length;
