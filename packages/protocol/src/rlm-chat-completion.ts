import { z } from 'zod';
import { usageSummarySchema } from './usage.js';

/** How a run ended. Only `completed` carries a real `answer`. */
export const runStatusSchema = z.enum([
  'completed',
  'max_iterations',
  'budget_exceeded',
  'timeout',
  'cancelled',
  'error',
  /** The process running it stopped (crash, restart) and it could not be resumed. */
  'interrupted',
]);
export type RunStatus = z.infer<typeof runStatusSchema>;

/** The outcome of one RLM invocation (root or child), with tree-wide usage. */
export const rlmChatCompletionSchema = z.object({
  runId: z.string(),
  /** The root run's id (equal to `runId` at the root). */
  rootRunId: z.string(),
  parentRunId: z.string().nullable(),
  depth: z.number().int().nonnegative(),
  /** The root model's id. */
  model: z.string(),
  query: z.string(),
  /** The final answer; for `max_iterations` the reply to the last "answer now" call. */
  answer: z.string().nullable(),
  status: runStatusSchema,
  /** Best answer known when the run did not complete: the latest non-empty root response. */
  partialAnswer: z.string().nullable(),
  usage: usageSummarySchema,
  iterations: z.number().int().nonnegative(),
  /** Wall-clock milliseconds for the whole invocation, children included. */
  executionTime: z.number().nonnegative(),
  trajectoryPath: z.string().nullable(),
  promptVersion: z.string().optional(),
  error: z.object({ code: z.string(), message: z.string() }).nullable().default(null),
});
export type RLMChatCompletion = z.infer<typeof rlmChatCompletionSchema>;
