import pg from 'pg';
import type { ApiKeyStore } from '../api-key-store.js';
import { migrateServerTables } from './migrate-server-tables.js';
import { createPostgresApiKeyStore } from './postgres-api-key-store.js';

/** Runs `work` with the replicas' key store in the database at `url` (migrated first). */
export async function withPostgresKeys<T>(
  url: string,
  work: (keys: ApiKeyStore) => Promise<T>,
): Promise<T> {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  try {
    await migrateServerTables(pool);
    return await work(createPostgresApiKeyStore(pool));
  } finally {
    await pool.end();
  }
}
