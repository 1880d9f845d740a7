import type { BackendContext } from '../backend-context.js';
import { notFound } from '../not-found.js';
import { parseId } from '../parse-input.js';
import { parseLimit } from '../run-inputs.js';
import {
  type ClaimRunOptions,
  parseClaimOptions,
  parseLease,
  parseLeaseMs,
  type RunLease,
} from '../run-lease.js';
import type { SqlDriver, SqlExecutor } from './sql-driver.js';

interface LeaseRow {
  run_id: string;
  holder: string;
  epoch: number;
  expires_at: number;
}

const LEASE_COLUMNS = 'run_id, holder, epoch, expires_at';

/**
 * Run leases in the `run_leases` table (one row per run, kept while the run exists). Every
 * change takes the run's lock (`run:<id>`), the one its writes take, so a claim and a fenced
 * write of the previous holder never interleave.
 */
export class SqlRunLeases {
  readonly #driver: SqlDriver;
  readonly #context: BackendContext;

  constructor(driver: SqlDriver, context: BackendContext) {
    this.#driver = driver;
    this.#context = context;
  }

  async claim(runId: string, options: ClaimRunOptions): Promise<RunLease | undefined> {
    const { holder, leaseMs } = parseClaimOptions(options);
    return this.#driver.transaction(
      async (tx) => {
        const now = this.#context.now();
        const run = await tx.get<{ found: number }>('SELECT 1 AS found FROM runs WHERE id = ?', [
          runId,
        ]);
        if (run === undefined) throw notFound('run', runId);
        const row = await tx.get<LeaseRow>(
          `INSERT INTO run_leases (${LEASE_COLUMNS}) VALUES (?, ?, 1, ?)
           ON CONFLICT (run_id) DO UPDATE
             SET holder = excluded.holder, epoch = run_leases.epoch + 1,
                 expires_at = excluded.expires_at
             WHERE run_leases.expires_at <= ?
           RETURNING ${LEASE_COLUMNS}`,
          [runId, holder, now + leaseMs, now],
        );
        return row === undefined ? undefined : toLease(row);
      },
      { lock: `run:${runId}` },
    );
  }

  async renew(lease: RunLease, options: { leaseMs: number }): Promise<RunLease | undefined> {
    const held = parseLease(lease);
    const leaseMs = parseLeaseMs(options);
    return this.#driver.transaction(
      async (tx) => {
        const now = this.#context.now();
        const row = await tx.get<LeaseRow>(
          `UPDATE run_leases SET expires_at = ?
           WHERE run_id = ? AND holder = ? AND epoch = ? AND expires_at > ?
           RETURNING ${LEASE_COLUMNS}`,
          [now + leaseMs, held.runId, held.holder, held.epoch, now],
        );
        return row === undefined ? undefined : toLease(row);
      },
      { lock: `run:${held.runId}` },
    );
  }

  async release(lease: RunLease): Promise<boolean> {
    const held = parseLease(lease);
    // Expired at the epoch start rather than deleted, so the next claim continues the epochs.
    const { changes } = await this.#driver.transaction(
      (tx) =>
        tx.run(
          `UPDATE run_leases SET expires_at = 0
           WHERE run_id = ? AND holder = ? AND epoch = ? AND expires_at > ?`,
          [held.runId, held.holder, held.epoch, this.#context.now()],
        ),
      { lock: `run:${held.runId}` },
    );
    return changes > 0;
  }

  async of(runId: string): Promise<RunLease | undefined> {
    const row = await this.#driver.get<LeaseRow>(
      `SELECT ${LEASE_COLUMNS} FROM run_leases WHERE run_id = ?`,
      [parseId(runId, 'run id')],
    );
    return row === undefined ? undefined : toLease(row);
  }

  async lapsed({ limit }: { limit?: number }): Promise<RunLease[]> {
    const rows = await this.#driver.all<LeaseRow>(
      `SELECT l.run_id, l.holder, l.epoch, l.expires_at FROM run_leases l
       JOIN runs r ON r.id = l.run_id
       WHERE l.expires_at <= ? AND r.status IN ('queued', 'running')
       ORDER BY l.expires_at, l.run_id LIMIT ?`,
      [this.#context.now(), parseLimit(limit)],
    );
    return rows.map(toLease);
  }

  /** Whether `lease` is still the run's live lease (inside a transaction holding the run lock). */
  async isLive(tx: SqlExecutor, lease: RunLease): Promise<boolean> {
    const row = await tx.get<{ found: number }>(
      `SELECT 1 AS found FROM run_leases
       WHERE run_id = ? AND holder = ? AND epoch = ? AND expires_at > ?`,
      [lease.runId, lease.holder, lease.epoch, this.#context.now()],
    );
    return row !== undefined;
  }
}

function toLease(row: LeaseRow): RunLease {
  return {
    runId: row.run_id,
    holder: row.holder,
    epoch: Number(row.epoch),
    expiresAt: Number(row.expires_at),
  };
}
