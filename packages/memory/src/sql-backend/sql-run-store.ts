import {
  type JsonValue,
  jsonValueSchema,
  type RunEvent,
  runEventSchema,
  type TrajectoryRecord,
  trajectoryRecordSchema,
  usageSummarySchema,
} from '@rlm/protocol';
import type { BackendContext } from '../backend-context.js';
import { leaseLost } from '../lease-lost.js';
import { notFound } from '../not-found.js';
import { parseId, parseInput } from '../parse-input.js';
import { decodeRunCursor, encodeRunCursor } from '../run-cursor.js';
import {
  isEndStatus,
  parseAfterSeq,
  parseCheckpointInput,
  parseCutoff,
  parseListRuns,
  parseRunEvent,
  parseRunPatch,
  parseTrajectoryRecord,
} from '../run-inputs.js';
import {
  type ClaimRunOptions,
  type CreateRunOptions,
  parseLease,
  type RunLease,
} from '../run-lease.js';
import {
  type Checkpoint,
  type CreateRunInput,
  createRunInputSchema,
  type ListRunsOptions,
  type RetentionResult,
  type RunPage,
  type RunPatch,
  type RunRecord,
  type RunStore,
  runRecordSchema,
  type StoredRunEvent,
} from '../run-store.js';
import { readJsonColumn } from './read-json-column.js';
import type { SqlDriver, SqlExecutor, SqlValue } from './sql-driver.js';
import { SqlRunLeases } from './sql-run-leases.js';

interface RunRow {
  id: string;
  parent_id: string | null;
  owner: string | null;
  status: string;
  config: string;
  usage: string;
  created_at: number;
  updated_at: number;
  ended_at: number | null;
}

const RUN_COLUMNS = 'id, parent_id, owner, status, config, usage, created_at, updated_at, ended_at';
const configSchema = runRecordSchema.shape.config;
const statusSchema = runRecordSchema.shape.status;

/** Runs and their events, checkpoints and trajectory; child tables cascade on run deletion. */
export class SqlRunStore implements RunStore {
  readonly #driver: SqlDriver;
  readonly #context: BackendContext;
  readonly #leases: SqlRunLeases;
  /** Set on a `fenced` view: writes to its run check this lease first. */
  readonly #fence: RunLease | undefined;

  constructor(driver: SqlDriver, context: BackendContext, fence?: RunLease) {
    this.#driver = driver;
    this.#context = context;
    this.#leases = new SqlRunLeases(driver, context);
    this.#fence = fence;
  }

  async createRun(input: CreateRunInput, options: CreateRunOptions = {}): Promise<RunRecord> {
    this.#context.assertOpen('runs.createRun');
    const run = parseInput(createRunInputSchema, input, 'run');
    const now = this.#context.now();
    const row = await this.#driver.transaction(
      async (tx) => {
        const inserted = await tx.get<RunRow>(
          `INSERT INTO runs (${RUN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${RUN_COLUMNS}`,
          [
            run.id,
            run.parentId,
            run.owner,
            run.status,
            JSON.stringify(run.config),
            JSON.stringify({ models: {} }),
            now,
            now,
            isEndStatus(run.status) ? now : null,
          ],
        );
        await options.inTransaction?.({
          executeSql: (text, values) => tx.native(text, values),
        });
        return inserted;
      },
      { lock: runLock(run.id) },
    );
    return toRun(row as RunRow);
  }

  async getRun(runId: string): Promise<RunRecord | undefined> {
    this.#context.assertOpen('runs.getRun');
    const row = await this.#driver.get<RunRow>(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = ?`, [
      runId,
    ]);
    return row === undefined ? undefined : toRun(row);
  }

  async updateRun(runId: string, patch: RunPatch): Promise<RunRecord> {
    this.#context.assertOpen('runs.updateRun');
    const parsed = parseRunPatch(patch);
    const now = this.#context.now();
    return this.#driver.transaction(
      async (tx) => {
        const current = await requireRun(tx, runId);
        await this.#checkFence(tx, runId);
        const status = parsed.status ?? current.status;
        const row = await tx.get<RunRow>(
          `UPDATE runs SET status = ?, usage = ?, config = ?, updated_at = ?, ended_at = ?
         WHERE id = ? RETURNING ${RUN_COLUMNS}`,
          [
            status,
            JSON.stringify(parsed.usage ?? current.usage),
            JSON.stringify(parsed.config ?? current.config),
            now,
            isEndStatus(status) ? (current.endedAt ?? now) : null,
            runId,
          ],
        );
        return toRun(row as RunRow);
      },
      { lock: runLock(runId) },
    );
  }

  async listRuns(options: ListRunsOptions = {}): Promise<RunPage> {
    this.#context.assertOpen('runs.listRuns');
    const { statuses, parentId, owner, createdAfter, createdBefore, limit, cursor } =
      parseListRuns(options);
    const where: string[] = [];
    const params: SqlValue[] = [];
    if (statuses !== undefined) {
      where.push(`status IN (${statuses.map(() => '?').join(', ') || 'NULL'})`);
      params.push(...statuses);
    }
    if (parentId === null) where.push('parent_id IS NULL');
    else if (parentId !== undefined) {
      where.push('parent_id = ?');
      params.push(parentId);
    }
    if (owner !== undefined) {
      where.push('owner = ?');
      params.push(owner);
    }
    if (createdAfter !== undefined) {
      where.push('created_at >= ?');
      params.push(createdAfter);
    }
    if (createdBefore !== undefined) {
      where.push('created_at < ?');
      params.push(createdBefore);
    }
    if (cursor !== undefined) {
      const after = decodeRunCursor(cursor);
      where.push('(created_at < ? OR (created_at = ? AND id < ?))');
      params.push(after.createdAt, after.createdAt, after.id);
    }
    const rows = await this.#driver.all<RunRow>(
      `SELECT ${RUN_COLUMNS} FROM runs ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
       ORDER BY created_at DESC, id DESC LIMIT ?`,
      [...params, limit + 1],
    );
    const runs = rows.slice(0, limit).map(toRun);
    const last = runs.at(-1);
    return {
      runs,
      nextCursor: rows.length > limit && last !== undefined ? encodeRunCursor(last) : null,
    };
  }

  async appendEvent(runId: string, event: RunEvent): Promise<number> {
    this.#context.assertOpen('runs.appendEvent');
    const text = JSON.stringify(parseRunEvent(event));
    return this.#driver.transaction(
      async (tx) => {
        await requireRunExists(tx, runId);
        await this.#checkFence(tx, runId);
        const row = await tx.get<{ seq: number }>(
          `INSERT INTO run_events (run_id, seq, event)
         VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM run_events WHERE run_id = ?), ?)
         RETURNING seq`,
          [runId, runId, text],
        );
        return (row as { seq: number }).seq;
      },
      { lock: runLock(runId) },
    );
  }

  async eventsAfter(
    runId: string,
    afterSeq: number,
    options: { limit?: number } = {},
  ): Promise<StoredRunEvent[]> {
    this.#context.assertOpen('runs.eventsAfter');
    const { afterSeq: from, limit } = parseAfterSeq(afterSeq, options.limit);
    const rows = await this.#driver.all<{ seq: number; event: string }>(
      `SELECT seq, event FROM run_events WHERE run_id = ? AND seq > ? ORDER BY seq
       ${limit === undefined ? '' : 'LIMIT ?'}`,
      limit === undefined ? [runId, from] : [runId, from, limit],
    );
    return rows.map((row) => ({
      seq: row.seq,
      event: readJsonColumn(runEventSchema, row.event, 'run_events.event'),
    }));
  }

  async saveCheckpoint(runId: string, turn: number, data: JsonValue): Promise<Checkpoint> {
    this.#context.assertOpen('runs.saveCheckpoint');
    const parsed = parseCheckpointInput(turn, data);
    const at = this.#context.now();
    await this.#driver.transaction(
      async (tx) => {
        await requireRunExists(tx, runId);
        await this.#checkFence(tx, runId);
        await tx.run(
          `INSERT INTO run_checkpoints (run_id, turn, data, at) VALUES (?, ?, ?, ?)
         ON CONFLICT (run_id, turn) DO UPDATE SET data = excluded.data, at = excluded.at`,
          [runId, parsed.turn, JSON.stringify(parsed.data), at],
        );
        // Only the latest state is ever resumed from; each one holds the whole run so far, so
        // keeping every turn's would grow with the square of the turns.
        await tx.run('DELETE FROM run_checkpoints WHERE run_id = ? AND turn < ?', [
          runId,
          parsed.turn,
        ]);
      },
      { lock: runLock(runId) },
    );
    return { runId, turn: parsed.turn, data: parsed.data, at };
  }

  async latestCheckpoint(runId: string): Promise<Checkpoint | undefined> {
    this.#context.assertOpen('runs.latestCheckpoint');
    const row = await this.#driver.get<{ turn: number; data: string; at: number }>(
      'SELECT turn, data, at FROM run_checkpoints WHERE run_id = ? ORDER BY turn DESC LIMIT 1',
      [runId],
    );
    if (row === undefined) return undefined;
    const data = readJsonColumn(jsonValueSchema, row.data, 'run_checkpoints.data');
    return { runId, turn: row.turn, data, at: row.at };
  }

  async appendTrajectory(runId: string, record: TrajectoryRecord): Promise<void> {
    this.#context.assertOpen('runs.appendTrajectory');
    const text = JSON.stringify(parseTrajectoryRecord(record));
    await this.#driver.transaction(
      async (tx) => {
        await requireRunExists(tx, runId);
        await this.#checkFence(tx, runId);
        await tx.run(
          `INSERT INTO run_trajectory (run_id, seq, record)
         VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM run_trajectory WHERE run_id = ?), ?)`,
          [runId, runId, text],
        );
      },
      { lock: runLock(runId) },
    );
  }

  async trajectory(runId: string): Promise<TrajectoryRecord[]> {
    this.#context.assertOpen('runs.trajectory');
    const rows = await this.#driver.all<{ record: string }>(
      'SELECT record FROM run_trajectory WHERE run_id = ? ORDER BY seq',
      [runId],
    );
    return rows.map((row) =>
      readJsonColumn(trajectoryRecordSchema, row.record, 'run_trajectory.record'),
    );
  }

  async trajectoryJsonl(runId: string): Promise<string> {
    const records = await this.trajectory(runId);
    return records.map((record) => `${JSON.stringify(record)}\n`).join('');
  }

  async deleteRunsBefore(cutoffMs: number): Promise<RetentionResult> {
    this.#context.assertOpen('runs.deleteRunsBefore');
    const cutoff = parseCutoff(cutoffMs);
    const { changes } = await this.#driver.run(
      `DELETE FROM runs WHERE created_at < ? AND status NOT IN ('queued', 'running')`,
      [cutoff],
    );
    return { deletedRuns: changes };
  }

  async deleteRun(runId: string): Promise<boolean> {
    this.#context.assertOpen('runs.deleteRun');
    const id = parseId(runId, 'run id');
    // Events, checkpoints and trajectories cascade; the run's descendants are found recursively.
    const { changes } = await this.#driver.transaction(
      (tx) =>
        tx.run(
          `WITH RECURSIVE doomed (id) AS (
             SELECT id FROM runs WHERE id = ?
             UNION ALL SELECT runs.id FROM runs JOIN doomed ON runs.parent_id = doomed.id)
           DELETE FROM runs WHERE id IN (SELECT id FROM doomed)`,
          [id],
        ),
      { lock: runLock(id) },
    );
    return changes > 0;
  }

  claimRun(runId: string, options: ClaimRunOptions): Promise<RunLease | undefined> {
    this.#context.assertOpen('runs.claimRun');
    return this.#leases.claim(parseId(runId, 'run id'), options);
  }

  renewLease(lease: RunLease, options: { leaseMs: number }): Promise<RunLease | undefined> {
    this.#context.assertOpen('runs.renewLease');
    return this.#leases.renew(lease, options);
  }

  releaseLease(lease: RunLease): Promise<boolean> {
    this.#context.assertOpen('runs.releaseLease');
    return this.#leases.release(lease);
  }

  leaseOf(runId: string): Promise<RunLease | undefined> {
    this.#context.assertOpen('runs.leaseOf');
    return this.#leases.of(runId);
  }

  lapsedLeases(options: { limit?: number } = {}): Promise<RunLease[]> {
    this.#context.assertOpen('runs.lapsedLeases');
    return this.#leases.lapsed(options);
  }

  fenced(lease: RunLease): RunStore {
    return new SqlRunStore(this.#driver, this.#context, parseLease(lease));
  }

  /** In a fenced view, refuses a write to the fenced run once its lease is no longer held. */
  async #checkFence(tx: SqlExecutor, runId: string): Promise<void> {
    const fence = this.#fence;
    if (fence === undefined || fence.runId !== runId) return;
    if (!(await this.#leases.isLive(tx, fence))) throw leaseLost(fence);
  }
}

/** One run's writes (status, events, checkpoints, trajectory) are serialised per run. */
function runLock(runId: string): string {
  return `run:${runId}`;
}

/** A cheaper existence check than `requireRun` for the hot append paths. */
async function requireRunExists(tx: SqlExecutor, runId: string): Promise<void> {
  const row = await tx.get<{ found: number }>('SELECT 1 AS found FROM runs WHERE id = ?', [
    parseId(runId, 'run id'),
  ]);
  if (row === undefined) throw notFound('run', runId);
}

async function requireRun(tx: SqlExecutor, runId: string): Promise<RunRecord> {
  const row = await tx.get<RunRow>(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = ?`, [
    parseId(runId, 'run id'),
  ]);
  if (row === undefined) throw notFound('run', runId);
  return toRun(row);
}

function toRun(row: RunRow): RunRecord {
  return {
    id: row.id,
    parentId: row.parent_id,
    owner: row.owner,
    status: readJsonColumn(statusSchema, JSON.stringify(row.status), 'runs.status'),
    config: readJsonColumn(configSchema, row.config, 'runs.config'),
    usage: readJsonColumn(usageSummarySchema, row.usage, 'runs.usage'),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    endedAt: row.ended_at,
  };
}
