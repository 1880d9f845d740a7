import type { Pool } from 'pg';
import { type ApiKeyRecord, type ApiKeyStore, apiKeyRecordSchema } from '../api-key-store.js';

/**
 * API keys in the shared Postgres (`rlm_server_api_keys`), so a key created against one replica
 * (`rlm-server keys create` with `RLM_DATABASE_URL` set) works on all of them at once. As with
 * the key file, only the SHA-256 of a key is stored.
 */
export function createPostgresApiKeyStore(pool: Pool): ApiKeyStore {
  const parse = (rows: { record: string | object }[]): ApiKeyRecord[] =>
    rows.map((row) =>
      apiKeyRecordSchema.parse(
        typeof row.record === 'string' ? JSON.parse(row.record) : row.record,
      ),
    );
  return {
    async findByHash(hash) {
      const { rows } = await pool.query<{ record: object }>(
        'SELECT record FROM rlm_server_api_keys WHERE hash = $1',
        [hash],
      );
      return parse(rows)[0];
    },
    async add(record) {
      const parsed = apiKeyRecordSchema.parse(record);
      await pool.query('INSERT INTO rlm_server_api_keys (id, hash, record) VALUES ($1, $2, $3)', [
        parsed.id,
        parsed.hash,
        JSON.stringify(parsed),
      ]);
    },
    async list() {
      const { rows } = await pool.query<{ record: object }>(
        'SELECT record FROM rlm_server_api_keys ORDER BY id',
      );
      return parse(rows);
    },
    async revoke(id, at) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const { rows } = await client.query<{ record: object }>(
          'SELECT record FROM rlm_server_api_keys WHERE id = $1 FOR UPDATE',
          [id],
        );
        const [current] = parse(rows);
        if (current === undefined) {
          await client.query('ROLLBACK');
          return false;
        }
        const revoked = { ...current, revokedAt: current.revokedAt ?? at.toISOString() };
        await client.query('UPDATE rlm_server_api_keys SET record = $2 WHERE id = $1', [
          id,
          JSON.stringify(revoked),
        ]);
        await client.query('COMMIT');
        return true;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
  };
}
