import { RlmError } from '@rlm/protocol';
import { POSTGRES_MIGRATIONS, POSTGRES_SCHEMA_VERSION } from './postgres-migrations.js';

/** The part of a `pg` client the migrations use. */
export interface MigrationClient {
  query<TRow>(sql: string, params?: unknown[]): Promise<{ rows: TRow[] }>;
}

/** Names the advisory lock every migrating connection takes, whatever the schema. */
const MIGRATION_LOCK = 'rlm.memory.migrate';

/**
 * Brings the database (the first schema of the connection's `search_path`) to
 * `POSTGRES_SCHEMA_VERSION`. A current database is only read. An older one is migrated in one
 * transaction (Postgres DDL is transactional, so a failed step leaves the database as it was)
 * under an advisory lock, re-reading the version inside it, so replicas starting together
 * migrate once.
 *
 * @throws RlmError `memory.schema_too_new` when the database is from a newer version, before
 * anything is written to it
 */
export async function migratePostgres(client: MigrationClient): Promise<void> {
  if ((await readVersion(client)) === POSTGRES_SCHEMA_VERSION) return;
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [MIGRATION_LOCK]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS rlm_schema_migrations (
         version INTEGER PRIMARY KEY,
         applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
       )`,
    );
    const current = await readVersion(client);
    for (const migration of POSTGRES_MIGRATIONS) {
      if (migration.version <= current) continue;
      await client.query(migration.sql);
      await client.query('INSERT INTO rlm_schema_migrations (version) VALUES ($1)', [
        migration.version,
      ]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/**
 * The database's schema version (0 when it has none of our tables).
 * @throws RlmError `memory.schema_too_new`
 */
async function readVersion(client: MigrationClient): Promise<number> {
  const [table] = (
    await client.query<{ present: boolean }>(
      "SELECT to_regclass('rlm_schema_migrations') IS NOT NULL AS present",
    )
  ).rows;
  if (table?.present !== true) return 0;
  const [row] = (
    await client.query<{ version: number }>(
      'SELECT COALESCE(MAX(version), 0) AS version FROM rlm_schema_migrations',
    )
  ).rows;
  const version = row?.version ?? 0;
  if (version > POSTGRES_SCHEMA_VERSION) {
    throw new RlmError({
      code: 'memory.schema_too_new',
      message: `The database was written by a newer @rlm/memory (schema ${version}; this version reads up to ${POSTGRES_SCHEMA_VERSION}). Upgrade @rlm/memory to open it.`,
      details: { fileVersion: version, supportedVersion: POSTGRES_SCHEMA_VERSION },
    });
  }
  return version;
}
