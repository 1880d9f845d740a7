import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { createStore, RUN_EVENTS_CHANNEL, type RunStore } from '@rlm/memory';
import pg from 'pg';
import PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import { migrateServerTables } from './migrate-server-tables.js';

/** The pg-boss queue runs wait on until a replica's worker takes them. */
export const RUN_QUEUE = 'rlm-runs';
/** Announces a queued run, so idle workers fetch at once instead of at their next poll. */
export const RUN_QUEUED_CHANNEL = 'rlm_run_queued';
/** Carries cancel requests to the replica that executes a run. */
export const RUN_CONTROL_CHANNEL = 'rlm_run_control';

/** How long a claim on a run lasts, and how often its holder renews it. */
export interface LeaseSettings {
  /** A run whose holder stopped renewing is taken over this long after the last renewal. */
  leaseMs: number;
  /** How often a replica renews the leases of the runs it executes (well under `leaseMs`). */
  heartbeatMs: number;
  /** How often an idle replica looks for queued runs and lapsed leases without being woken. */
  pollMs: number;
}

/** The connections one replica keeps to the shared Postgres, beside the `@rlm/memory` store's. */
export interface Cluster {
  /** This process among the replicas: host, pid and a random suffix. */
  readonly replicaId: string;
  /** The database URL (it may hold a password: never log it). */
  readonly url: string;
  readonly pool: pg.Pool;
  /** The durable job queue (pg-boss) runs are enqueued on. */
  readonly boss: PgBoss;
  readonly lease: LeaseSettings;
  /**
   * The run store on two connections of its own, for lease renewals: they must never wait behind
   * the event reads of many streams on the main store's pool, or a busy replica's leases lapse.
   */
  readonly leases: RunStore;
  /**
   * Calls `onMessage` with each notification on `channel` (one of the cluster's channels; one
   * LISTEN connection for all, reconnected when it drops; after a reconnect every subscriber gets an empty payload,
   * meaning "something may have been missed, look again"). Returns the unsubscribe function.
   */
  listen(channel: string, onMessage: (payload: string) => void): () => void;
  notify(channel: string, payload: string): Promise<void>;
  /** Runs `task` first when the cluster closes (connections other parts opened on its URL). */
  onClose(task: () => Promise<void>): void;
  /** Stops pg-boss, the listener and the pool. */
  close(): Promise<void>;
}

export interface OpenClusterOptions {
  url: string;
  lease: LeaseSettings;
  logger: Logger;
  /** Connections of this replica's own pool (the store has its own). @default 10 */
  poolSize?: number;
}

const RECONNECT_DELAY_MS = 500;
/** Every channel a replica listens on: event appends (from @rlm/memory), queued runs, controls. */
const CHANNELS = [RUN_EVENTS_CHANNEL, RUN_QUEUED_CHANNEL, RUN_CONTROL_CHANNEL] as const;

/**
 * Connects a replica to the shared Postgres: migrates the server's tables, starts pg-boss (its
 * own schema `pgboss`, migrated by pg-boss; queue `rlm-runs` created if missing) and one LISTEN
 * connection.
 */
export async function openCluster({
  url,
  lease,
  logger,
  poolSize = 10,
}: OpenClusterOptions): Promise<Cluster> {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  // An idle connection the server dropped is replaced on the next query; no crash over it.
  pool.on('error', (error) => logger.warn({ err: error }, 'idle Postgres connection lost'));
  await migrateServerTables(pool);
  const boss = new PgBoss({
    connectionString: url,
    max: 4,
    schedule: false,
    supervise: true,
    migrate: true,
    // A job is active only from its fetch until its run is claimed (the lease covers execution):
    // one still active two leases later belonged to a replica that died in between, and goes
    // back on the queue at the next maintenance, which runs every lease (pg-boss's defaults, a
    // 15-minute expiry checked every 2 minutes, would strand such a run that long). A replica
    // that is merely slow loses nothing: whoever fetches the job again finds the run claimed.
    expireInSeconds: Math.max(1, Math.ceil((2 * lease.leaseMs) / 1000)),
    maintenanceIntervalSeconds: Math.max(1, Math.ceil(lease.leaseMs / 1000)),
  });
  boss.on('error', (error: Error) => logger.warn({ err: error }, 'pg-boss error'));
  await boss.start();
  await boss.createQueue(RUN_QUEUE, { name: RUN_QUEUE, retryLimit: 1_000, retryDelay: 1 });
  const listener = createListener(url, logger);
  await listener.start();
  const leaseStore = await createStore({ kind: 'postgres', url, poolSize: 2 });
  const replicaId = `${hostname()}/${process.pid}/${randomBytes(3).toString('hex')}`;
  const closing: (() => Promise<void>)[] = [];
  return {
    replicaId,
    url,
    pool,
    boss,
    lease,
    leases: leaseStore.runs,
    listen: listener.listen,
    async notify(channel, payload) {
      await pool.query('SELECT pg_notify($1, $2)', [channel, payload]);
    },
    onClose(task) {
      closing.push(task);
    },
    async close() {
      for (const task of closing) await task().catch(() => undefined);
      await listener.close();
      await leaseStore.close();
      await boss.stop({ graceful: false, wait: true, close: true }).catch(() => undefined);
      await pool.end();
    },
  };
}

/** One LISTEN connection on the cluster's channels, shared by every subscriber, reconnected after a drop. */
function createListener(url: string, logger: Logger) {
  const subscribers = new Map<string, Set<(payload: string) => void>>(
    CHANNELS.map((channel) => [channel, new Set()]),
  );
  let client: pg.Client | undefined;
  let connecting: Promise<void> | undefined;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;

  const deliver = (channel: string, payload: string) => {
    for (const subscriber of subscribers.get(channel) ?? []) subscriber(payload);
  };

  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: url });
    next.on('notification', (message) => deliver(message.channel, message.payload ?? ''));
    next.on('error', (error) => {
      if (closed) return;
      logger.warn({ err: error }, 'Postgres LISTEN connection lost; reconnecting');
      void next.end().catch(() => undefined);
      if (client === next) client = undefined;
      scheduleReconnect();
    });
    await next.connect();
    for (const channel of CHANNELS) await next.query(`LISTEN ${channel}`);
    client = next;
  };

  const scheduleReconnect = () => {
    if (closed || timer !== undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      connecting = connect().then(
        // Notifications sent while disconnected are gone: every subscriber looks again.
        () => {
          for (const channel of CHANNELS) deliver(channel, '');
        },
        (error: unknown) => {
          logger.warn({ err: error }, 'Postgres LISTEN reconnect failed');
          scheduleReconnect();
        },
      );
    }, RECONNECT_DELAY_MS);
  };

  return {
    /** Connects; rejects when the first connection fails (the replica cannot start then). */
    start: async () => {
      connecting = connect();
      await connecting;
    },
    listen(channel: string, onMessage: (payload: string) => void): () => void {
      const set = subscribers.get(channel);
      if (set === undefined)
        throw new Error(`listen: ${channel} is not one of ${CHANNELS.join(', ')}`);
      set.add(onMessage);
      return () => set.delete(onMessage);
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      await connecting?.catch(() => undefined);
      await client?.end().catch(() => undefined);
    },
  };
}
