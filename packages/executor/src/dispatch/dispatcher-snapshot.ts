import { jsonValueSchema } from '@rlm/protocol';
import { z } from 'zod';
import { taskResultSchema } from './task-result.js';

/** One background task as a checkpoint keeps it. */
export const savedTaskSchema = z.object({
  id: z.string(),
  task: z.string(),
  /** What `delegate` was given besides the task (context, systemPrompt, model, tools). */
  options: z.record(z.string(), jsonValueSchema),
  /** Null while it runs: a resumed run starts it again. */
  result: taskResultSchema.nullable(),
  /** The full output, which goes back into the scratchpad under `task:<id>`. */
  output: z.string().nullable(),
});
export type SavedTask = z.infer<typeof savedTaskSchema>;

/**
 * A coordinator's background tasks at a checkpoint: every task in the order it was delegated,
 * and which finished results code has not read yet and the turn prompt has not mentioned yet.
 */
export const dispatcherSnapshotSchema = z.object({
  tasks: z.array(savedTaskSchema),
  unharvested: z.array(z.string()),
  sinceTurn: z.array(z.string()),
});
export type DispatcherSnapshot = z.infer<typeof dispatcherSnapshotSchema>;
