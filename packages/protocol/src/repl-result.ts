import { z } from 'zod';
import { usageSummarySchema } from './usage.js';

/** One sub-call made from sandbox code (`llm_query`, `rlm_query`, …) while a block ran. */
export const subCallRecordSchema = z.object({
  kind: z.enum(['llm', 'rlm']),
  model: z.string(),
  /** The prompt as sent (possibly shortened for the record, see `promptChars`). */
  prompt: z.string(),
  promptChars: z.number().int().nonnegative(),
  response: z.string(),
  ok: z.boolean(),
  durationMs: z.number().nonnegative(),
  usage: usageSummarySchema,
  /** The child run's id for `rlm` calls. */
  runId: z.string().optional(),
});
export type SubCallRecord = z.infer<typeof subCallRecordSchema>;

/** The error a block ended with, if it threw or hit a limit. */
export const blockErrorSchema = z.object({
  /** `SyntaxError`, `TypeError`, … or `RlmError` for limits. */
  name: z.string(),
  message: z.string(),
  /** Set when a limit stopped the block (`sandbox.timeout`, …). */
  code: z.string().optional(),
  /** 1-based line within the block, when known. */
  line: z.number().int().positive().optional(),
});
export type BlockError = z.infer<typeof blockErrorSchema>;

/** Pending host calls cancelled when a block ended, counted by function name. */
export const unawaitedCallsSchema = z.record(z.string(), z.number().int().positive());
export type UnawaitedCalls = z.infer<typeof unawaitedCallsSchema>;

/** What running one code block produced. */
export const replResultSchema = z.object({
  stdout: z.string(),
  stderr: z.string(),
  /** User variables after the block: name → type (`string`, `number`, `array`, `object`, `function`, …). */
  locals: z.record(z.string(), z.string()),
  /** Wall-clock time of the block in milliseconds. */
  executionTime: z.number().nonnegative(),
  llmCalls: z.array(subCallRecordSchema),
  /** Set when the block called `FINAL(…)` or `FINAL_VAR(…)` successfully. */
  finalAnswer: z.string().nullable(),
  error: blockErrorSchema.nullable().default(null),
  /**
   * Host calls (`llm_query`, tools, …) still pending when the block ended, by function name:
   * the code never awaited them, so they were cancelled and their results are lost.
   */
  unawaitedCalls: unawaitedCallsSchema.default({}),
});
export type REPLResult = z.infer<typeof replResultSchema>;

/** A code block and what running it produced. */
export const codeBlockSchema = z.object({
  code: z.string(),
  result: replResultSchema,
  /** The lines of the model's response between the block's fences (1-based, inclusive). */
  startLine: z.number().int().positive().optional(),
  endLine: z.number().int().positive().optional(),
});
export type CodeBlock = z.infer<typeof codeBlockSchema>;
