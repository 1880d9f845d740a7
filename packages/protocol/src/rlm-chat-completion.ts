import { z } from 'zod';
import { END_STATUSES } from './run-status-lists.js';
import { usageSummarySchema } from './usage.js';

/**
 * How a run ended. `completed` always has an `answer`; `max_iterations` has one only when the
 * extra "answer now" turn gave a `FINAL`/`FINAL_VAR`; every other status has none (see the
 * outcome table in the package README). `interrupted`: the process running it stopped (crash,
 * restart) and it could not be resumed. The lists of end and resumable statuses live beside it.
 */
export const runStatusSchema = z.enum(END_STATUSES);
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
  /**
   * The final answer, only ever from `FINAL(...)`, `FINAL_VAR(name)` or an accepted `set_answer`,
   * never from raw model text. For `max_iterations`, the `FINAL`/`FINAL_VAR` of the extra
   * "answer now" turn, if it gave one.
   */
  answer: z.string().nullable(),
  status: runStatusSchema,
  /**
   * Set only when `answer` is null: the latest non-empty root response, kept apart so nobody
   * mistakes it for an answer (it may be code or an unresolved `FINAL_VAR`).
   */
  partialAnswer: z.string().nullable(),
  usage: usageSummarySchema,
  /**
   * Model calls and sub-calls in this run's tree that a budget refused (never sent): a sub-call
   * started when a cap was already spent, or still waiting for room when a limit stopped its
   * run. Non-zero means some of the work the code asked for was not done, whatever the status.
   * Absent in results written before it existed.
   */
  refusedCalls: z.number().int().nonnegative().optional(),
  /**
   * Times this run's REPL engine was replaced by a fresh one (`sandbox.reset`: a block ran past
   * its time limit and could not be stopped otherwise), losing the variables blocks had defined.
   * The model was told each time. Absent when it never happened.
   */
  sandboxResets: z.number().int().positive().optional(),
  iterations: z.number().int().nonnegative(),
  /** Wall-clock milliseconds for the whole invocation, children included. */
  executionTime: z.number().nonnegative(),
  trajectoryPath: z.string().nullable(),
  promptVersion: z.string().optional(),
  error: z.object({ code: z.string(), message: z.string() }).nullable().default(null),
});
export type RLMChatCompletion = z.infer<typeof rlmChatCompletionSchema>;
