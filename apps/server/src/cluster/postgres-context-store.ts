import type { Pool } from 'pg';
import {
  contextNotFound,
  isContextId,
  meterContext,
  newContextId,
  saveContextValue,
} from '../context-checks.js';
import { type ContextMeta, type ContextStore, contextMetaSchema } from '../context-store.js';
import { parseContextJson } from '../parse-context-json.js';

/** Uploads are stored in rows of at most this many bytes, written as they arrive. */
const CHUNK_BYTES = 1024 * 1024;
/**
 * Uncommitted contexts younger than this may belong to a submission in progress on another
 * replica; only older ones are swept.
 */
const SWEEP_AFTER = '1 hour';

interface MetaRow {
  id: string;
  owner: string;
  format: string;
  bytes: number | string;
  sha256: string;
  created_at: string;
}

/**
 * Contexts in the shared Postgres, so every replica serves them: metadata in
 * `rlm_server_contexts`, data in 1 MiB rows of `rlm_server_context_chunks`. An upload streams
 * into one transaction, so a failed or cut-off upload leaves nothing; a pending context (saved
 * before its run is admitted) exists once `commit` marks it, which the cluster's admission does
 * in the transaction that stores the run.
 */
export function createPostgresContextStore(pool: Pool): ContextStore {
  async function meta(id: string): Promise<ContextMeta | undefined> {
    if (!isContextId(id)) return undefined;
    const { rows } = await pool.query<MetaRow>(
      'SELECT id, owner, format, bytes, sha256, created_at FROM rlm_server_contexts WHERE id = $1 AND committed',
      [id],
    );
    const row = rows[0];
    return row === undefined
      ? undefined
      : contextMetaSchema.parse({ ...row, bytes: Number(row.bytes), createdAt: row.created_at });
  }

  const store: ContextStore = {
    async save(body, { owner, format, limitBytes, pending = false }) {
      const id = newContextId();
      const createdAt = new Date().toISOString();
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        await client.query('BEGIN');
        await client.query(
          `INSERT INTO rlm_server_contexts (id, owner, format, bytes, sha256, created_at, committed)
           VALUES ($1, $2, $3, 0, '', $4, false)`,
          [id, owner, format, createdAt],
        );
        const meter = meterContext(limitBytes);
        const parts: Buffer[] = [];
        let pendingBytes: Buffer[] = [];
        let pendingSize = 0;
        let n = 0;
        const flush = async () => {
          if (pendingSize === 0) return;
          await client.query(
            'INSERT INTO rlm_server_context_chunks (context_id, n, data) VALUES ($1, $2, $3)',
            [id, n, Buffer.concat(pendingBytes)],
          );
          n += 1;
          pendingBytes = [];
          pendingSize = 0;
        };
        for await (const chunk of body) {
          meter.add(chunk);
          const buffer = Buffer.from(chunk);
          if (format === 'json') parts.push(buffer);
          pendingBytes.push(buffer);
          pendingSize += buffer.byteLength;
          if (pendingSize >= CHUNK_BYTES) await flush();
        }
        await flush();
        if (format === 'json') parseContextJson(Buffer.concat(parts).toString('utf8'));
        const record: ContextMeta = {
          id,
          owner,
          format,
          bytes: meter.bytes,
          sha256: meter.sha256(),
          createdAt,
        };
        await client.query(
          'UPDATE rlm_server_contexts SET bytes = $2, sha256 = $3, committed = $4 WHERE id = $1',
          [id, record.bytes, record.sha256, !pending],
        );
        await client.query('COMMIT');
        return record;
      } catch (error) {
        await client.query('ROLLBACK').catch((rollbackError: unknown) => {
          broken =
            rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
        });
        throw error;
      } finally {
        client.release(broken);
      }
    },
    saveValue: (value, options) => saveContextValue(store.save, value, options),
    async commit(record) {
      await pool.query('UPDATE rlm_server_contexts SET committed = true WHERE id = $1', [
        record.id,
      ]);
    },
    async remove(id) {
      if (!isContextId(id)) return false;
      const { rowCount } = await pool.query('DELETE FROM rlm_server_contexts WHERE id = $1', [id]);
      return (rowCount ?? 0) > 0;
    },
    async sweep() {
      const { rowCount } = await pool.query(
        `DELETE FROM rlm_server_contexts WHERE NOT committed AND written_at < now() - interval '${SWEEP_AFTER}'`,
      );
      return rowCount ?? 0;
    },
    meta,
    async load(id) {
      const found = await meta(id);
      if (found === undefined) throw contextNotFound(id);
      const { rows } = await pool.query<{ data: Buffer }>(
        'SELECT data FROM rlm_server_context_chunks WHERE context_id = $1 ORDER BY n',
        [id],
      );
      const text = Buffer.concat(rows.map((row) => row.data)).toString('utf8');
      return found.format === 'json' ? parseContextJson(text) : text;
    },
  };
  return store;
}
