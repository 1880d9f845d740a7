import { z } from 'zod';
import { jsonValueSchema } from './json-value.js';
import { chatMessageSchema, modelResponseSchema } from './language-model.js';
import { replLanguageSchema } from './repl-language.js';
import { runEventSchema } from './run-event.js';

/**
 * The version of the trajectory file format a writer stamps. 2 added lines that keep a file
 * small (`@rlm/trace` owns them: contexts referenced by slice, long texts written once); 3 added
 * lines that hold a run of sub-call records compressed together; 4 writes call numbers, changed
 * integers and slice offsets as steps from the previous line's. The records themselves are the
 * same, so headers of every version read.
 */
export const TRAJECTORY_VERSION = 4;

/**
 * One line of a trajectory (JSONL). A file is a header, then events and model exchanges in the
 * order they happened, across the whole run tree. Contexts are referenced by size and hash,
 * never copied; secrets never appear.
 */
export const trajectoryRecordSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('header'),
    version: z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(TRAJECTORY_VERSION)]),
    runId: z.string(),
    createdAt: z.string(),
    /** The root's REPL language; absent means JavaScript (files written before it was kept). */
    repl: replLanguageSchema.optional(),
    /** The run's configuration with secrets removed. */
    config: z.record(z.string(), jsonValueSchema),
  }),
  z.object({ kind: z.literal('event'), event: runEventSchema }),
  z.object({
    kind: z.literal('model-exchange'),
    runId: z.string(),
    callId: z.string(),
    request: z.object({
      system: z.string().optional(),
      /** Messages from index `messagesFrom` on; earlier ones equal the previous exchange's of this run. */
      messages: z.array(chatMessageSchema),
      messagesFrom: z.number().int().nonnegative().default(0),
    }),
    response: modelResponseSchema.nullable(),
    error: z.object({ code: z.string(), message: z.string() }).optional(),
  }),
]);
export type TrajectoryRecord = z.infer<typeof trajectoryRecordSchema>;
