import {
  type JsonValue,
  jsonValueSchema,
  type RunEvent,
  runEventSchema,
  type TrajectoryRecord,
  trajectoryRecordSchema,
} from '@rlm/protocol';
import { z } from 'zod';
import { parseInput } from './parse-input.js';
import {
  DEFAULT_RUN_PAGE_SIZE,
  type ListRunsOptions,
  MAX_RUN_PAGE_SIZE,
  type RunPatch,
  runPatchSchema,
  type StoredRunStatus,
  storedRunStatusSchema,
} from './run-store.js';

const turnSchema = z.number().int().nonnegative();
const seqSchema = z.number().int().nonnegative();

/** @throws RlmError `protocol.invalid_message` naming the bad field */
export function parseRunEvent(event: RunEvent): RunEvent {
  return parseInput(runEventSchema, event, 'run event');
}

/** @throws RlmError `protocol.invalid_message` naming the bad field */
export function parseTrajectoryRecord(record: TrajectoryRecord): TrajectoryRecord {
  return parseInput(trajectoryRecordSchema, record, 'trajectory record');
}

/** @throws RlmError `protocol.invalid_message` */
export function parseCheckpointInput(
  turn: number,
  data: JsonValue,
): { turn: number; data: JsonValue } {
  return {
    turn: parseInput(turnSchema, turn, 'checkpoint turn'),
    data: parseInput(jsonValueSchema, data, 'checkpoint data'),
  };
}

/** @throws RlmError `protocol.invalid_message` */
export function parseRunPatch(patch: RunPatch): z.output<typeof runPatchSchema> {
  return parseInput(runPatchSchema, patch, 'run patch');
}

/** @throws RlmError `protocol.invalid_message` */
export function parseAfterSeq(
  afterSeq: number,
  limit: number | undefined,
): { afterSeq: number; limit: number | undefined } {
  return {
    afterSeq: parseInput(seqSchema, afterSeq, 'afterSeq'),
    limit:
      limit === undefined ? undefined : parseInput(z.number().int().positive(), limit, 'limit'),
  };
}

const listRunsSchema = z.object({
  status: z.union([storedRunStatusSchema, z.array(storedRunStatusSchema)]).optional(),
  parentId: z.string().nullable().optional(),
  owner: z.string().min(1).optional(),
  createdAfter: z.number().optional(),
  createdBefore: z.number().optional(),
  limit: z.number().int().positive().max(MAX_RUN_PAGE_SIZE).default(DEFAULT_RUN_PAGE_SIZE),
  cursor: z.string().optional(),
});

/** `ListRunsOptions` with defaults applied and `status` as a list. */
export interface ParsedListRuns extends Omit<ListRunsOptions, 'status' | 'limit'> {
  statuses: readonly StoredRunStatus[] | undefined;
  limit: number;
}

/** @throws RlmError `protocol.invalid_message` */
export function parseListRuns(options: ListRunsOptions): ParsedListRuns {
  const { status, ...rest } = parseInput(listRunsSchema, options, 'listRuns options');
  const statuses = status === undefined ? undefined : Array.isArray(status) ? status : [status];
  return { ...rest, statuses };
}

/** Whether a status means the run is over (retention only deletes finished runs). */
export function isEndStatus(status: StoredRunStatus): boolean {
  return status !== 'queued' && status !== 'running';
}

/** @throws RlmError `protocol.invalid_message` */
export function parseCutoff(cutoffMs: number): number {
  return parseInput(z.number(), cutoffMs, 'cutoffMs');
}

/** How many rows a listing returns when the caller gives no `limit`. */
const DEFAULT_LIST_LIMIT = 100;

/** @throws RlmError `protocol.invalid_message` */
export function parseLimit(limit: number | undefined): number {
  return parseInput(
    z.number().int().positive().max(MAX_RUN_PAGE_SIZE).default(DEFAULT_LIST_LIMIT),
    limit,
    'limit',
  );
}
