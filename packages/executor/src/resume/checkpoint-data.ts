import {
  chatMessageSchema,
  jsonValueSchema,
  RlmError,
  replLanguageSchema,
  usageSummarySchema,
} from '@rlm/protocol';
import { z } from 'zod';
import { dispatcherSnapshotSchema } from '../dispatch/dispatcher-snapshot.js';
import { recordedHostCallSchema } from './host-call-log.js';

/** One completed root turn as a resume re-executes it: its blocks and their host calls. */
export const recordedTurnSchema = z.object({
  codes: z.array(z.string()),
  calls: z.array(recordedHostCallSchema),
});
export type RecordedTurn = z.infer<typeof recordedTurnSchema>;

/** What a root saves to its `RunStore` after each completed turn. */
export const checkpointDataSchema = z.object({
  version: z.literal(1),
  query: z.string().nullable(),
  /** The root's REPL language, which the resumed run keeps; absent in checkpoints of JavaScript runs. */
  repl: replLanguageSchema.optional(),
  /** Hash of the context (`sha256:…`): `resume` refuses a different one. */
  contextHash: z.string(),
  /** The last completed turn (0-based). */
  iteration: z.number().int().nonnegative(),
  turns: z.array(recordedTurnSchema),
  history: z.array(chatMessageSchema),
  archive: z.array(chatMessageSchema),
  compactedPrefix: z.number().int().nonnegative(),
  partial: z.string().nullable(),
  consecutiveErrors: z.number().int().nonnegative(),
  codeEverRan: z.boolean(),
  guardUsed: z.boolean(),
  usage: usageSummarySchema,
  subcalls: z.number().int().nonnegative(),
  /** Calls the run's budget refused so far (absent in checkpoints written before it was kept). */
  refusedCalls: z.number().int().nonnegative().optional(),
  /**
   * Times the run's REPL was reset so far, so a resumed run reports the whole run's (absent when
   * none, and in checkpoints written before it was kept).
   */
  sandboxResets: z.number().int().nonnegative().optional(),
  /** Size of the run's JSONL trajectory file after this turn, when it has one. */
  trajectoryBytes: z.number().int().nonnegative().nullable().optional(),
  /** The JSON Schema of a typed answer: a resume without its own `output` checks against it. */
  output: z.record(z.string(), jsonValueSchema).optional(),
  counters: z.object({
    calls: z.number().int().nonnegative(),
    children: z.number().int().nonnegative(),
  }),
  /** A coordinator's background tasks; absent for a root without the dispatcher. */
  dispatcher: dispatcherSnapshotSchema.optional(),
  /** The latest `set_answer` (a coordinator's draft or proposal). */
  proposed: z
    .object({
      content: z.string(),
      confidence: z.number().min(0).max(1).nullable(),
      ready: z.boolean().nullable(),
    })
    .nullable()
    .optional(),
});
export type CheckpointData = z.infer<typeof checkpointDataSchema>;

/**
 * Reads a stored checkpoint.
 * @throws RlmError `executor.no_checkpoint` when it is not one this version wrote
 */
export function parseCheckpointData(runId: string, data: unknown): CheckpointData {
  const parsed = checkpointDataSchema.safeParse(data);
  if (!parsed.success) {
    throw new RlmError({
      code: 'executor.no_checkpoint',
      message: `Run ${runId} has a checkpoint this version cannot resume from (${parsed.error.issues[0]?.message ?? 'invalid'})`,
      details: { runId },
    });
  }
  return parsed.data;
}
