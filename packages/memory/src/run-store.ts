import {
  type JsonValue,
  jsonValueSchema,
  type RunEvent,
  runStatusSchema,
  type TrajectoryRecord,
  usageSummarySchema,
} from '@rlm/protocol';
import { z } from 'zod';
import type { ClaimRunOptions, CreateRunOptions, RunLease } from './run-lease.js';

/** Page size of `listRuns` when the caller gives none. */
export const DEFAULT_RUN_PAGE_SIZE = 50;
/** The largest page `listRuns` returns. */
export const MAX_RUN_PAGE_SIZE = 1000;

/** A stored run's status: `queued` and `running` before it ends, then protocol's end statuses. */
export const storedRunStatusSchema = z.enum(['queued', 'running', ...runStatusSchema.options]);
export type StoredRunStatus = z.infer<typeof storedRunStatusSchema>;

/** One run (root or child). Timestamps are epoch milliseconds. */
export const runRecordSchema = z.object({
  id: z.string(),
  parentId: z.string().nullable(),
  /**
   * Who the run belongs to (a server's API key id), for `listRuns({ owner })`; `null` when the
   * creator named nobody.
   */
  owner: z.string().nullable(),
  status: storedRunStatusSchema,
  /** The run's configuration with secrets removed. */
  config: z.record(z.string(), jsonValueSchema),
  usage: usageSummarySchema,
  createdAt: z.number(),
  updatedAt: z.number(),
  /** Set when the status becomes an end status. */
  endedAt: z.number().nullable(),
});
export type RunRecord = z.infer<typeof runRecordSchema>;

/** What `createRun` needs; the id is the caller's (the executor names its runs). */
export const createRunInputSchema = z.object({
  id: z.string().min(1),
  parentId: z.string().min(1).nullable().default(null),
  owner: z.string().min(1).nullable().default(null),
  status: storedRunStatusSchema.default('running'),
  config: z.record(z.string(), jsonValueSchema).default({}),
});
export type CreateRunInput = z.input<typeof createRunInputSchema>;

/** Fields `updateRun` may change. Setting an end status stamps `endedAt`. */
export const runPatchSchema = z.object({
  status: storedRunStatusSchema.optional(),
  usage: usageSummarySchema.optional(),
  /** Replaces the run's configuration (a run continued with other limits). */
  config: z.record(z.string(), jsonValueSchema).optional(),
});
export type RunPatch = z.input<typeof runPatchSchema>;

/** Filters and paging for `listRuns`; newest runs first. */
export interface ListRunsOptions {
  status?: StoredRunStatus | readonly StoredRunStatus[];
  /** Only children of this run (`null`: only roots). */
  parentId?: string | null;
  /** Only runs created with this `owner` (indexed, so every page is full when more runs match). */
  owner?: string;
  /** Only runs created at or after this epoch ms. */
  createdAfter?: number;
  /** Only runs created before this epoch ms. */
  createdBefore?: number;
  /** @default DEFAULT_RUN_PAGE_SIZE */
  limit?: number;
  /** `nextCursor` of the previous page. */
  cursor?: string;
}

/** A page of runs; `nextCursor` is `null` on the last page. */
export interface RunPage {
  runs: RunRecord[];
  nextCursor: string | null;
}

/** An event as stored, with its per-run sequence number (1, 2, 3… without gaps). */
export interface StoredRunEvent {
  seq: number;
  event: RunEvent;
}

/** The state saved after a turn, for resuming a run. */
export interface Checkpoint {
  runId: string;
  turn: number;
  data: JsonValue;
  at: number;
}

/** How much `deleteRunsBefore` removed. */
export interface RetentionResult {
  deletedRuns: number;
}

/**
 * Durable record of runs: status and usage, an append-only event log numbered per run (SSE
 * clients resume with `eventsAfter(runId, lastSeq)`), per-turn checkpoints and the trajectory.
 * Every JSON value is validated with its protocol schema when written and when read back.
 */
export interface RunStore {
  /**
   * @throws RlmError `protocol.invalid_message` for bad input, `memory.storage_failed` for a
   *   duplicate id, `config.invalid` for `inTransaction` on the memory backend, and
   *   whatever `inTransaction` throws (nothing is stored then)
   */
  createRun(input: CreateRunInput, options?: CreateRunOptions): Promise<RunRecord>;
  getRun(runId: string): Promise<RunRecord | undefined>;
  /** @throws RlmError `memory.not_found` for an unknown run */
  updateRun(runId: string, patch: RunPatch): Promise<RunRecord>;
  listRuns(options?: ListRunsOptions): Promise<RunPage>;
  /**
   * Appends an event and resolves its sequence number once it is durably written.
   * @throws RlmError `memory.not_found` for an unknown run, `protocol.invalid_message` for a bad event
   */
  appendEvent(runId: string, event: RunEvent): Promise<number>;
  /** Events with `seq > afterSeq`, in order; at most `limit` when given. */
  eventsAfter(
    runId: string,
    afterSeq: number,
    options?: { limit?: number },
  ): Promise<StoredRunEvent[]>;
  /**
   * Saves the state after `turn`, replacing an earlier save of the same turn and dropping the
   * saves of earlier turns (a checkpoint holds the whole state, so only the latest is kept).
   * @throws RlmError `memory.not_found` for an unknown run
   */
  saveCheckpoint(runId: string, turn: number, data: JsonValue): Promise<Checkpoint>;
  /** The checkpoint with the highest turn, if any. */
  latestCheckpoint(runId: string): Promise<Checkpoint | undefined>;
  /** @throws RlmError `memory.not_found` for an unknown run, `protocol.invalid_message` for a bad record */
  appendTrajectory(runId: string, record: TrajectoryRecord): Promise<void>;
  /** The trajectory records in append order. */
  trajectory(runId: string): Promise<TrajectoryRecord[]>;
  /** The trajectory as JSONL (one record per line, each ending with `\n`). */
  trajectoryJsonl(runId: string): Promise<string>;
  /**
   * Retention: deletes runs created before `cutoffMs` that are no longer `running`/`queued`,
   * with their events, checkpoints and trajectory.
   */
  deleteRunsBefore(cutoffMs: number): Promise<RetentionResult>;
  /**
   * Deletes one run, whatever its status, with its child runs (recursively) and all their events,
   * checkpoints and trajectories, in one transaction. Resolves `false` when there was no such
   * run. Callers decide whether an active run may go (the server refuses while it is queued or
   * running).
   * @throws RlmError `protocol.invalid_message` for a blank id
   */
  deleteRun(runId: string): Promise<boolean>;
  /**
   * Claims the run for `holder` for `leaseMs`, when nobody holds it: it has no lease yet, or its
   * lease lapsed or was released. Resolves `undefined` while another lease (or an earlier one of
   * the same holder) is live. Each claim gets the next `epoch`.
   * @throws RlmError `memory.not_found` for an unknown run, `protocol.invalid_message` for bad options
   */
  claimRun(runId: string, options: ClaimRunOptions): Promise<RunLease | undefined>;
  /**
   * Extends a live lease to `leaseMs` from now. Resolves `undefined` when the lease is no longer
   * held (it lapsed, was released or was taken over): the holder must stop working on the run.
   */
  renewLease(lease: RunLease, options: { leaseMs: number }): Promise<RunLease | undefined>;
  /** Gives the run up at once (another process may claim it); false when the lease was not held. */
  releaseLease(lease: RunLease): Promise<boolean>;
  /** The run's latest lease, live or not. */
  leaseOf(runId: string): Promise<RunLease | undefined>;
  /**
   * Leases that lapsed or were released while their run is still `queued` or `running`: runs
   * whose holder died or gave them up, for another process to claim. Oldest expiry first.
   */
  lapsedLeases(options?: { limit?: number }): Promise<RunLease[]>;
  /**
   * This store, with writes to `lease.runId` (status, events, checkpoints, trajectory) fenced by
   * the lease: each checks, in its own transaction and under the run's lock, that the lease is
   * still live, and otherwise rejects with `memory.lease_lost` and writes nothing. A claim takes
   * the same lock, so no write of the old holder lands after another process claimed the run.
   */
  fenced(lease: RunLease): RunStore;
}
