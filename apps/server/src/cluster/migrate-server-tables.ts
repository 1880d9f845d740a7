import { RlmError } from '@rlm/protocol';
import type { Pool } from 'pg';
import { SERVER_MIGRATIONS, SERVER_SCHEMA_VERSION } from './server-tables.js';

const MIGRATION_LOCK = 'rlm.server.migrate';

/**
 * Brings the server's tables to `SERVER_SCHEMA_VERSION` in one transaction under an advisory
 * lock (replicas starting together migrate once).
 * @throws RlmError `config.invalid` when the database was written by a newer server
 */
export async function migrateServerTables(pool: Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    try {
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [MIGRATION_LOCK]);
      await client.query(
        `CREATE TABLE IF NOT EXISTS rlm_server_migrations (
           version INTEGER PRIMARY KEY,
           applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
         )`,
      );
      const { rows } = await client.query<{ version: number }>(
        'SELECT COALESCE(MAX(version), 0)::int AS version FROM rlm_server_migrations',
      );
      const current = rows[0]?.version ?? 0;
      if (current > SERVER_SCHEMA_VERSION) {
        throw new RlmError({
          code: 'config.invalid',
          message: `The database was written by a newer @rlm/server (server schema ${current}; this version knows up to ${SERVER_SCHEMA_VERSION}); upgrade every replica`,
          details: { source: 'RLM_DATABASE_URL', issues: ['server schema: newer than this build'] },
        });
      }
      for (const migration of SERVER_MIGRATIONS) {
        if (migration.version <= current) continue;
        await client.query(migration.sql);
        await client.query('INSERT INTO rlm_server_migrations (version) VALUES ($1)', [
          migration.version,
        ]);
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  } finally {
    client.release();
  }
}
