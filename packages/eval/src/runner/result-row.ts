import { runStatusSchema } from '@rlm/protocol';
import { z } from 'zod';

/** How one attempt ended: a run status, or `error` when the system failed before producing one. */
export const rowStatusSchema = runStatusSchema;

/** One attempt of one system on one task: a line of `results.jsonl`. */
export const resultRowSchema = z.object({
  taskId: z.string(),
  system: z.string(),
  /** 0-based attempt number. */
  attempt: z.number().int().nonnegative(),
  benchmark: z.string(),
  /** The context size: the generator's requested size, else the characters read (the chart's x axis). */
  contextChars: z.number().int().nonnegative(),
  answer: z.string().nullable(),
  expected: z.string(),
  score: z.number().min(0).max(1),
  passed: z.boolean(),
  status: rowStatusSchema,
  costUsd: z.number().nonnegative(),
  /**
   * The cost is nominal: an offline (`testkit:`) model answered, priced so the cost columns and
   * budgets can be exercised; no money was spent. Absent for real models.
   */
  costNominal: z.boolean().optional(),
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  /** Sub-calls the cache answered at no cost (`rlm eval --cache`); absent when none. */
  cachedCalls: z.number().int().positive().optional(),
  /** What those cached sub-calls cost when they were first made. */
  savedCostUsd: z.number().nonnegative().optional(),
  latencyMs: z.number().nonnegative(),
  iterations: z.number().int().nonnegative(),
  trajectoryPath: z.string().nullable(),
  promptVersion: z.string().nullable(),
  /** Base system only: characters of context cut to fit the window (0 when it all fit). */
  truncatedChars: z.number().int().nonnegative(),
  model: z.string(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  finishedAt: z.string(),
});
export type ResultRow = z.infer<typeof resultRowSchema>;

/** The key resume uses: one row per task, system and attempt. */
export function rowKey(row: Pick<ResultRow, 'taskId' | 'system' | 'attempt'>): string {
  return JSON.stringify([row.taskId, row.system, row.attempt]);
}
