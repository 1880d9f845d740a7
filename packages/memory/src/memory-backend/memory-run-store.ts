import type { JsonValue, RunEvent, TrajectoryRecord } from '@rlm/protocol';
import { RlmError } from '@rlm/protocol';
import type { BackendContext } from '../backend-context.js';
import { leaseLost } from '../lease-lost.js';
import { notFound } from '../not-found.js';
import { parseId, parseInput } from '../parse-input.js';
import { decodeRunCursor, encodeRunCursor, isAfterCursor } from '../run-cursor.js';
import {
  isEndStatus,
  parseAfterSeq,
  parseCheckpointInput,
  parseCutoff,
  parseLimit,
  parseListRuns,
  parseRunEvent,
  parseRunPatch,
  parseTrajectoryRecord,
} from '../run-inputs.js';
import {
  type ClaimRunOptions,
  type CreateRunOptions,
  parseClaimOptions,
  parseLease,
  parseLeaseMs,
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
  type StoredRunEvent,
} from '../run-store.js';

interface RunData {
  record: RunRecord;
  lease: RunLease | undefined;
  events: StoredRunEvent[];
  checkpoints: Map<number, Checkpoint>;
  trajectory: TrajectoryRecord[];
}

/** Runs in a Map; values are validated on write and cloned on the way in and out. */
export class MemoryRunStore implements RunStore {
  readonly #runs: Map<string, RunData>;
  readonly #context: BackendContext;
  /** Set on a `fenced` view: writes to its run check this lease first. */
  readonly #fence: RunLease | undefined;

  constructor(context: BackendContext, shared?: { runs: Map<string, RunData>; fence: RunLease }) {
    this.#context = context;
    this.#runs = shared?.runs ?? new Map();
    this.#fence = shared?.fence;
  }

  async createRun(input: CreateRunInput, options: CreateRunOptions = {}): Promise<RunRecord> {
    this.#context.assertOpen('runs.createRun');
    const parsed = parseInput(createRunInputSchema, input, 'run');
    if (options.inTransaction !== undefined) {
      throw new RlmError({
        code: 'config.invalid',
        message:
          'createRun: inTransaction needs a SQL backend (sqlite or postgres); the memory backend has no transactions to join',
        details: {
          source: 'createRun options',
          issues: ['inTransaction: not supported by the memory backend'],
        },
      });
    }
    if (this.#runs.has(parsed.id)) {
      throw new RlmError({
        code: 'memory.storage_failed',
        message: `A run with id ${JSON.stringify(parsed.id)} already exists`,
        details: { operation: 'runs.createRun' },
      });
    }
    const now = this.#context.now();
    const record: RunRecord = {
      ...structuredClone(parsed),
      usage: { models: {} },
      createdAt: now,
      updatedAt: now,
      endedAt: isEndStatus(parsed.status) ? now : null,
    };
    this.#runs.set(record.id, {
      record,
      lease: undefined,
      events: [],
      checkpoints: new Map(),
      trajectory: [],
    });
    return structuredClone(record);
  }

  async getRun(runId: string): Promise<RunRecord | undefined> {
    this.#context.assertOpen('runs.getRun');
    const run = this.#runs.get(runId);
    return run === undefined ? undefined : structuredClone(run.record);
  }

  async updateRun(runId: string, patch: RunPatch): Promise<RunRecord> {
    this.#context.assertOpen('runs.updateRun');
    const parsed = parseRunPatch(patch);
    const run = this.#requireWritable(runId);
    const now = this.#context.now();
    const status = parsed.status ?? run.record.status;
    run.record = {
      ...run.record,
      status,
      usage: parsed.usage === undefined ? run.record.usage : structuredClone(parsed.usage),
      config: parsed.config === undefined ? run.record.config : structuredClone(parsed.config),
      updatedAt: now,
      endedAt: isEndStatus(status) ? (run.record.endedAt ?? now) : null,
    };
    return structuredClone(run.record);
  }

  async listRuns(options: ListRunsOptions = {}): Promise<RunPage> {
    this.#context.assertOpen('runs.listRuns');
    const { statuses, parentId, owner, createdAfter, createdBefore, limit, cursor } =
      parseListRuns(options);
    const after = cursor === undefined ? undefined : decodeRunCursor(cursor);
    const matching = [...this.#runs.values()]
      .map((run) => run.record)
      .filter(
        (run) =>
          (statuses === undefined || statuses.includes(run.status)) &&
          (parentId === undefined || run.parentId === parentId) &&
          (owner === undefined || run.owner === owner) &&
          (createdAfter === undefined || run.createdAt >= createdAfter) &&
          (createdBefore === undefined || run.createdAt < createdBefore) &&
          (after === undefined || isAfterCursor(run, after)),
      )
      .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    const runs = matching.slice(0, limit).map((run) => structuredClone(run));
    const last = runs.at(-1);
    const nextCursor = matching.length > limit && last !== undefined ? encodeRunCursor(last) : null;
    return { runs, nextCursor };
  }

  async appendEvent(runId: string, event: RunEvent): Promise<number> {
    this.#context.assertOpen('runs.appendEvent');
    const parsed = parseRunEvent(event);
    const run = this.#requireWritable(runId);
    const seq = run.events.length + 1;
    run.events.push({ seq, event: parsed });
    return seq;
  }

  async eventsAfter(
    runId: string,
    afterSeq: number,
    options: { limit?: number } = {},
  ): Promise<StoredRunEvent[]> {
    this.#context.assertOpen('runs.eventsAfter');
    const { afterSeq: from, limit } = parseAfterSeq(afterSeq, options.limit);
    const events = this.#runs.get(runId)?.events ?? [];
    // seq n sits at index n - 1, so the slice starts right after `from`.
    const page = events.slice(from, limit === undefined ? undefined : from + limit);
    return structuredClone(page);
  }

  async saveCheckpoint(runId: string, turn: number, data: JsonValue): Promise<Checkpoint> {
    this.#context.assertOpen('runs.saveCheckpoint');
    const parsed = parseCheckpointInput(turn, data);
    const run = this.#requireWritable(runId);
    const checkpoint: Checkpoint = {
      runId: run.record.id,
      turn: parsed.turn,
      data: structuredClone(parsed.data),
      at: this.#context.now(),
    };
    run.checkpoints.set(parsed.turn, checkpoint);
    // As in SQLite: earlier states are superseded, only the latest is resumed from.
    for (const turn of run.checkpoints.keys()) if (turn < parsed.turn) run.checkpoints.delete(turn);
    return structuredClone(checkpoint);
  }

  async latestCheckpoint(runId: string): Promise<Checkpoint | undefined> {
    this.#context.assertOpen('runs.latestCheckpoint');
    const checkpoints = [...(this.#runs.get(runId)?.checkpoints.values() ?? [])];
    const latest = checkpoints.sort((a, b) => b.turn - a.turn)[0];
    return latest === undefined ? undefined : structuredClone(latest);
  }

  async appendTrajectory(runId: string, record: TrajectoryRecord): Promise<void> {
    this.#context.assertOpen('runs.appendTrajectory');
    const parsed = parseTrajectoryRecord(record);
    this.#requireWritable(runId).trajectory.push(parsed);
  }

  async trajectory(runId: string): Promise<TrajectoryRecord[]> {
    this.#context.assertOpen('runs.trajectory');
    return structuredClone(this.#runs.get(runId)?.trajectory ?? []);
  }

  async trajectoryJsonl(runId: string): Promise<string> {
    const records = await this.trajectory(runId);
    return records.map((record) => `${JSON.stringify(record)}\n`).join('');
  }

  async deleteRunsBefore(cutoffMs: number): Promise<RetentionResult> {
    this.#context.assertOpen('runs.deleteRunsBefore');
    const cutoff = parseCutoff(cutoffMs);
    let deletedRuns = 0;
    for (const [id, run] of this.#runs) {
      if (run.record.createdAt < cutoff && isEndStatus(run.record.status)) {
        this.#runs.delete(id);
        deletedRuns++;
      }
    }
    return { deletedRuns };
  }

  async deleteRun(runId: string): Promise<boolean> {
    this.#context.assertOpen('runs.deleteRun');
    const id = parseId(runId, 'run id');
    if (!this.#runs.has(id)) return false;
    const doomed = new Set([id]);
    // Children are stored after their parent, but a pass per generation does not rely on that.
    for (let grew = true; grew; ) {
      grew = false;
      for (const run of this.#runs.values()) {
        const parent = run.record.parentId;
        if (parent !== null && doomed.has(parent) && !doomed.has(run.record.id)) {
          doomed.add(run.record.id);
          grew = true;
        }
      }
    }
    for (const doomedId of doomed) this.#runs.delete(doomedId);
    return true;
  }

  async claimRun(runId: string, options: ClaimRunOptions): Promise<RunLease | undefined> {
    this.#context.assertOpen('runs.claimRun');
    const { holder, leaseMs } = parseClaimOptions(options);
    const run = this.#require(runId);
    const now = this.#context.now();
    if (run.lease !== undefined && run.lease.expiresAt > now) return undefined;
    run.lease = {
      runId: run.record.id,
      holder,
      epoch: (run.lease?.epoch ?? 0) + 1,
      expiresAt: now + leaseMs,
    };
    return { ...run.lease };
  }

  async renewLease(lease: RunLease, options: { leaseMs: number }): Promise<RunLease | undefined> {
    this.#context.assertOpen('runs.renewLease');
    const held = parseLease(lease);
    const leaseMs = parseLeaseMs(options);
    const run = this.#runs.get(held.runId);
    if (run === undefined || !isLive(run.lease, held, this.#context.now())) return undefined;
    run.lease = { ...held, expiresAt: this.#context.now() + leaseMs };
    return { ...run.lease };
  }

  async releaseLease(lease: RunLease): Promise<boolean> {
    this.#context.assertOpen('runs.releaseLease');
    const held = parseLease(lease);
    const run = this.#runs.get(held.runId);
    if (run === undefined || !isLive(run.lease, held, this.#context.now())) return false;
    run.lease = { ...held, expiresAt: 0 };
    return true;
  }

  async leaseOf(runId: string): Promise<RunLease | undefined> {
    this.#context.assertOpen('runs.leaseOf');
    const lease = this.#runs.get(parseId(runId, 'run id'))?.lease;
    return lease === undefined ? undefined : { ...lease };
  }

  async lapsedLeases(options: { limit?: number } = {}): Promise<RunLease[]> {
    this.#context.assertOpen('runs.lapsedLeases');
    const limit = parseLimit(options.limit);
    const now = this.#context.now();
    return [...this.#runs.values()]
      .filter((run) => !isEndStatus(run.record.status))
      .flatMap((run) => (run.lease !== undefined && run.lease.expiresAt <= now ? [run.lease] : []))
      .sort((a, b) => a.expiresAt - b.expiresAt || (a.runId < b.runId ? -1 : 1))
      .slice(0, limit)
      .map((lease) => ({ ...lease }));
  }

  fenced(lease: RunLease): RunStore {
    return new MemoryRunStore(this.#context, { runs: this.#runs, fence: parseLease(lease) });
  }

  /** `#require`, and in a fenced view the fenced run only while its lease is live. */
  #requireWritable(runId: string): RunData {
    const run = this.#require(runId);
    const fence = this.#fence;
    if (fence !== undefined && fence.runId === run.record.id) {
      if (!isLive(run.lease, fence, this.#context.now())) throw leaseLost(fence);
    }
    return run;
  }

  #require(runId: string): RunData {
    const run = this.#runs.get(parseId(runId, 'run id'));
    if (run === undefined) throw notFound('run', runId);
    return run;
  }
}

/** Whether `current` is the live lease `held` names. */
function isLive(current: RunLease | undefined, held: RunLease, now: number): boolean {
  return (
    current !== undefined &&
    current.holder === held.holder &&
    current.epoch === held.epoch &&
    current.expiresAt > now
  );
}
