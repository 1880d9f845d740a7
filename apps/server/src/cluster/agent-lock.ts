import pg from 'pg';
import type { Cluster } from './open-cluster.js';

/** Agents' turns waiting at once across the cluster, per replica, before they queue here. */
const LOCK_CONNECTIONS = 16;

/**
 * Runs an agent's turns one at a time across every replica: a turn holds a session advisory lock
 * named for the agent on a connection of its own (waiters queue in Postgres, first come first
 * served), released when the turn ends, or by the database if the replica dies. The connections
 * come from a small pool of their own, so turns waiting for an agent never starve other queries.
 */
export function agentLock(cluster: Cluster) {
  const pool = new pg.Pool({
    connectionString: cluster.url,
    max: LOCK_CONNECTIONS,
  });
  pool.on('error', () => undefined);
  cluster.onClose(() => pool.end());
  return async function exclusive<T>(agentId: string, task: () => Promise<T>): Promise<T> {
    const client = await pool.connect();
    const name = `rlm-server:agent:${agentId}`;
    let broken: Error | undefined;
    try {
      await client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [name]);
      try {
        return await task();
      } finally {
        await client
          .query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [name])
          .catch((error: unknown) => {
            // The session is in doubt: closing it releases the lock for sure.
            broken = error instanceof Error ? error : new Error(String(error));
          });
      }
    } finally {
      client.release(broken);
    }
  };
}
