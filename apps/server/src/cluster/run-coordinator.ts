import { RUN_EVENTS_CHANNEL, type RunLease, type RunStore, type TransactionSql } from '@rlm/memory';
import { rateLimited } from '../runs/rate-limited.js';
import type { ServerLimits } from '../server-config.js';
import {
  type Cluster,
  RUN_CONTROL_CHANNEL,
  RUN_QUEUE,
  RUN_QUEUED_CHANNEL,
} from './open-cluster.js';

/** What a submission needs admitted in the transaction that stores its run. */
export interface Admission {
  runId: string;
  keyId: string;
  /** `run`s wait on the queue for any replica; chat and agent runs execute where they arrived. */
  queued: boolean;
  /** A context stored for this run only, made visible with the run. */
  pendingContextId: string | undefined;
}

/**
 * The database's side of working with the other replicas: admission and enqueueing in the run's
 * own transaction, leases (claimed, renewed, released in the run store), the pg-boss queue, cancel
 * requests and wake-ups. The run lifecycle's Postgres coordinator (`createPostgresCoordinator` in
 * `runs/postgres-coordinator.ts`) is built on it; tests give it `memoryCoordinator` instead.
 */
export interface RunCoordinator {
  readonly replicaId: string;
  readonly leaseMs: number;
  readonly heartbeatMs: number;
  readonly pollMs: number;
  /**
   * Inside the run's insert transaction: per-key concurrency (queued and running runs of the key
   * across all replicas) and queue size, both under a per-key advisory lock; commits the run's
   * pending context; sends its job (a `run` at once, for any worker; a chat or agent run as a
   * watchdog due one lease later, which interrupts it should this replica die before claiming it).
   * @throws RlmError `server.rate_limited` (nothing is stored then)
   */
  admit(sql: TransactionSql, admission: Admission): Promise<void>;
  claim(runId: string): Promise<RunLease | undefined>;
  /** Renews a lease on connections of their own (see `Cluster.leases`); undefined once lost. */
  renew(lease: RunLease): Promise<RunLease | undefined>;
  /** Takes up to `limit` queued runs off the queue; their jobs are done once handed over. */
  fetch(limit: number, take: (runId: string) => Promise<void>): Promise<number>;
  /** Leases whose holder stopped renewing them (it died, or gave the run up at a shutdown). */
  lapsed(limit: number): Promise<RunLease[]>;
  /** Asks whichever replica executes `runId` to cancel it. */
  requestCancel(runId: string): Promise<void>;
  /** Of `runIds`, those with a cancel request waiting (checked at every heartbeat). */
  cancelsFor(runIds: readonly string[]): Promise<string[]>;
  clearCancel(runId: string): Promise<void>;
  /** Wakes event streams on every replica (a status change has no event of its own). */
  announce(runId: string): Promise<void>;
  /** Wakes idle workers on every replica (a run was queued or given up). */
  wakeWorkers(): Promise<void>;
  /** `wake` runs when a run is queued or given up somewhere; `cancel` on a cancel request. */
  subscribe(handlers: { wake: () => void; cancel: (runId: string) => void }): () => void;
}

/** Builds the coordinator over a connected cluster and the shared run store. */
export function createRunCoordinator(
  cluster: Cluster,
  { store, limits }: { store: RunStore; limits: ServerLimits },
): RunCoordinator {
  const { pool, boss, replicaId } = cluster;
  const { leaseMs, heartbeatMs, pollMs } = cluster.lease;
  return {
    replicaId,
    leaseMs,
    heartbeatMs,
    pollMs,
    async admit(sql, { runId, keyId, queued, pendingContextId }) {
      await sql.executeSql('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
        `rlm-server:key:${keyId}`,
      ]);
      // Counted inside the run's transaction, after its insert: it counts itself. The key lock
      // makes concurrent submissions of one key, on any replica, count one after the other.
      const active = await count(
        sql,
        `SELECT count(*)::int AS n FROM runs
         WHERE owner = $1 AND parent_id IS NULL AND status IN ('queued', 'running')`,
        [keyId],
      );
      if (active > limits.concurrentRunsPerKey) {
        throw rateLimited(
          'concurrent_runs',
          `This key already has ${limits.concurrentRunsPerKey} runs queued or running`,
        );
      }
      if (queued) {
        const waiting = await count(
          sql,
          `SELECT count(*)::int AS n FROM runs WHERE parent_id IS NULL AND status = 'queued'`,
          [],
        );
        if (waiting > limits.queueSize) throw rateLimited('queue', 'The run queue is full');
      }
      if (pendingContextId !== undefined) {
        await sql.executeSql('UPDATE rlm_server_contexts SET committed = true WHERE id = $1', [
          pendingContextId,
        ]);
      }
      const db = { executeSql: (text: string, values: unknown[]) => sql.executeSql(text, values) };
      await boss.send(
        RUN_QUEUE,
        { runId },
        queued ? { db } : { db, startAfter: Math.ceil((2 * leaseMs) / 1000) },
      );
      if (queued) await sql.executeSql('SELECT pg_notify($1, $2)', [RUN_QUEUED_CHANNEL, runId]);
    },
    claim: (runId) => store.claimRun(runId, { holder: replicaId, leaseMs }),
    renew: (lease) => cluster.leases.renewLease(lease, { leaseMs }),
    async fetch(limit, take) {
      if (limit <= 0) return 0;
      const jobs = await boss.fetch<{ runId?: unknown }>(RUN_QUEUE, { batchSize: limit });
      for (const job of jobs) {
        const runId = job.data.runId;
        try {
          if (typeof runId === 'string') await take(runId);
          await boss.complete(RUN_QUEUE, job.id);
        } catch (error) {
          // The database failed under the hand-over: the job comes back after its retry delay.
          await boss.fail(RUN_QUEUE, job.id, { message: String(error) }).catch(() => undefined);
        }
      }
      return jobs.length;
    },
    lapsed: (limit) => store.lapsedLeases({ limit }),
    async requestCancel(runId) {
      await pool.query(
        `INSERT INTO rlm_server_run_controls (run_id, action) VALUES ($1, 'cancel')
         ON CONFLICT (run_id) DO NOTHING`,
        [runId],
      );
      await cluster.notify(RUN_CONTROL_CHANNEL, runId);
    },
    async cancelsFor(runIds) {
      if (runIds.length === 0) return [];
      const { rows } = await pool.query<{ run_id: string }>(
        'SELECT run_id FROM rlm_server_run_controls WHERE run_id = ANY($1::text[])',
        [runIds],
      );
      return rows.map((row) => row.run_id);
    },
    async clearCancel(runId) {
      await pool.query('DELETE FROM rlm_server_run_controls WHERE run_id = $1', [runId]);
    },
    async announce(runId) {
      // The same payload as @rlm/memory's trigger, without a sequence number.
      await cluster.notify(RUN_EVENTS_CHANNEL, JSON.stringify({ runId, seq: null }));
    },
    async wakeWorkers() {
      await cluster.notify(RUN_QUEUED_CHANNEL, '');
    },
    subscribe({ wake, cancel }) {
      const unqueued = cluster.listen(RUN_QUEUED_CHANNEL, () => wake());
      const uncontrolled = cluster.listen(RUN_CONTROL_CHANNEL, (runId) => {
        // An empty payload follows a reconnect: the heartbeat's check of the table covers it.
        if (runId !== '') cancel(runId);
      });
      return () => {
        unqueued();
        uncontrolled();
      };
    },
  };
}

async function count(sql: TransactionSql, text: string, values: unknown[]): Promise<number> {
  const { rows } = await sql.executeSql(text, values);
  return Number((rows[0] as { n: number } | undefined)?.n ?? 0);
}
