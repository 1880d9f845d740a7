import type { JsonValue, RunEvent, TrajectoryRecord } from '@rlm/protocol';
import { RlmError } from '@rlm/protocol';
import type { BackendContext } from '../backend-context.js';
import { notFound } from '../not-found.js';
import { parseId, parseInput } from '../parse-input.js';
import { decodeRunCursor, encodeRunCursor, isAfterCursor } from '../run-cursor.js';
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
  events: StoredRunEvent[];
  checkpoints: Map<number, Checkpoint>;
  trajectory: TrajectoryRecord[];
}

/** Runs in a Map; values are validated on write and cloned on the way in and out. */
export class MemoryRunStore implements RunStore {
  readonly #runs = new Map<string, RunData>();
  readonly #context: BackendContext;

  constructor(context: BackendContext) {
    this.#context = context;
  }

  async createRun(input: CreateRunInput): Promise<RunRecord> {
    this.#context.assertOpen('runs.createRun');
    const parsed = parseInput(createRunInputSchema, input, 'run');
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
    this.#runs.set(record.id, { record, events: [], checkpoints: new Map(), trajectory: [] });
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
    const run = this.#require(runId);
    const now = this.#context.now();
    const status = parsed.status ?? run.record.status;
    run.record = {
      ...run.record,
      status,
      usage: parsed.usage === undefined ? run.record.usage : structuredClone(parsed.usage),
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
    const run = this.#require(runId);
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
    const run = this.#require(runId);
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
    this.#require(runId).trajectory.push(parsed);
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

  #require(runId: string): RunData {
    const run = this.#runs.get(parseId(runId, 'run id'));
    if (run === undefined) throw notFound('run', runId);
    return run;
  }
}
