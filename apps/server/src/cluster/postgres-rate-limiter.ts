import type { Pool } from 'pg';
import type { RateLimiter } from '../rate-limiter.js';

/** The database's clock in epoch ms, so replicas with skewed clocks share one bucket exactly. */
const NOW_MS = 'extract(epoch FROM clock_timestamp()) * 1000';

/**
 * Token buckets in the shared Postgres (`rlm_server_rate_buckets`): one atomic upsert per
 * request refills the bucket by the time passed and takes a token only when one is there, so a
 * key gets `perMinute` requests per minute across all replicas together.
 */
export function createPostgresRateLimiter(
  pool: Pool,
  { perMinute, namespace }: { perMinute: number; namespace: string },
): RateLimiter {
  const perMs = perMinute / 60_000;
  return {
    perMinute,
    async take(key) {
      const name = `${namespace}:${key}`;
      const taken = await pool.query(
        `INSERT INTO rlm_server_rate_buckets AS b (key, tokens, at)
         VALUES ($1, $2::float8 - 1, ${NOW_MS})
         ON CONFLICT (key) DO UPDATE
           SET tokens = LEAST($2::float8, b.tokens + (${NOW_MS} - b.at) * $3::float8) - 1,
               at = ${NOW_MS}
           WHERE LEAST($2::float8, b.tokens + (${NOW_MS} - b.at) * $3::float8) >= 1
         RETURNING tokens`,
        [name, perMinute, perMs],
      );
      if ((taken.rowCount ?? 0) > 0) return { ok: true };
      const { rows } = await pool.query<{ tokens: number }>(
        `SELECT LEAST($2::float8, tokens + (${NOW_MS} - at) * $3::float8) AS tokens
         FROM rlm_server_rate_buckets WHERE key = $1`,
        [name, perMinute, perMs],
      );
      const tokens = rows[0]?.tokens ?? 0;
      return { ok: false, retryAfterMs: Math.max(1, Math.ceil((1 - tokens) / perMs)) };
    },
  };
}
