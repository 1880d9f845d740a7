import {
  jsonValueSchema,
  replLanguageSchema,
  runLimitsSchema,
  runModeSchema,
  runStatusSchema,
  usageSummarySchema,
} from '@rlm/protocol';
import { z } from 'zod';

const paths = z
  .array(z.string().min(1))
  .max(1_000)
  .describe('Files, directories or globs, relative to the first allowed root');

/** Arguments of `rlm_query`. */
export const rlmQueryInputSchema = z.strictObject({
  query: z.string().min(1).describe('The question or task'),
  context: z.string().optional().describe('Text to answer over (joined with the files)'),
  paths: paths.optional(),
  model: z
    .string()
    .min(1)
    .optional()
    .describe(
      'A model id for the run, among those the server allows (the configured one by default)',
    ),
  maxDepth: runLimitsSchema.shape.maxDepth.unwrap().max(10).optional(),
  maxIterations: runLimitsSchema.shape.maxIterations.unwrap().max(200).optional(),
  maxCostUsd: runLimitsSchema.shape.maxCostUsd,
  maxTokens: runLimitsSchema.shape.maxTokens,
  escalate: z
    .array(z.string().min(1))
    .min(1, 'escalate names at least one model')
    .max(10)
    .optional()
    .describe(
      'An escalation ladder, cheapest first, each a model id the server allows (as model): a child run stuck on errors or out of turns without an answer runs again once on the next one',
    ),
  escalateAfterErrors: z
    .number()
    .int()
    .positive()
    .max(50)
    .optional()
    .describe('With an escalation ladder: failing turns in a row after which a child escalates'),
  mode: runModeSchema
    .optional()
    .describe(
      'solver (the default) or coordinator (background tasks; needs maxDepth of 2 or more)',
    ),
  drivers: z
    .array(z.string().min(1))
    .max(20)
    .optional()
    .describe('Built-in prompt drivers by name'),
  repl: replLanguageSchema.optional().describe('The REPL language: javascript (default) or python'),
  outputSchema: z
    .record(z.string(), jsonValueSchema)
    .optional()
    .describe('A JSON Schema the answer must match; the answer is then JSON'),
});

/** What `rlm_query` returns as `structuredContent` (a run without an answer too, with `isError`). */
export const rlmQueryOutputSchema = z.object({
  answer: z.string().nullable(),
  outcome: runStatusSchema,
  runId: z.string(),
  usage: usageSummarySchema,
  costUsd: z.number().nonnegative(),
  /** Model calls and sub-calls a budget refused (never sent): non-zero means part of the work was not done. */
  refusedCalls: z.number().int().nonnegative(),
  /** Times the run's REPL was reset (`sandbox.reset`), losing what its blocks had defined. */
  sandboxResets: z.number().int().nonnegative(),
  error: z.object({ code: z.string(), kind: z.string(), message: z.string() }).optional(),
});

/** Arguments of `context_load`. */
export const contextLoadInputSchema = z
  .strictObject({
    paths: paths.optional(),
    text: z.string().optional().describe('Text to load (joined with the files)'),
  })
  .refine((value) => value.paths !== undefined || value.text !== undefined, {
    message: 'give paths, text or both',
    path: ['paths'],
  });

/** What `context_load` returns. */
export const contextLoadOutputSchema = z.object({
  bytes: z.number().int().nonnegative(),
  chars: z.number().int().nonnegative(),
  lines: z.number().int().nonnegative(),
  files: z.array(z.string()),
  skippedBinary: z.array(z.string()),
  preview: z.string(),
});

/** Arguments of `repl_exec`. */
export const replExecInputSchema = z.strictObject({
  code: z.string().min(1).describe('JavaScript to run in the persistent REPL'),
});

/** What `repl_exec` returns. */
export const replExecOutputSchema = z.object({
  output: z.string(),
  truncated: z.boolean(),
  finalAnswer: z.string().nullable(),
  error: z
    .object({ name: z.string(), message: z.string(), code: z.string().optional() })
    .nullable(),
  subCalls: z.number().int().nonnegative(),
  usage: usageSummarySchema.describe("This block's sub-calls"),
  costUsd: z.number().nonnegative(),
  sessionUsage: usageSummarySchema.describe("Every sub-call of the session's blocks so far"),
  reset: z
    .object({ code: z.literal('sandbox.reset'), message: z.string() })
    .nullable()
    .describe(
      'Set when the REPL lost its variables since your last block: a cancelled block was stuck and its engine replaced, or the idle sandbox was freed',
    ),
});

/** Arguments of `repl_reset`. */
export const replResetInputSchema = z.strictObject({});

/** What `repl_reset` returns. */
export const replResetOutputSchema = z.object({ reset: z.literal(true), contextChars: z.number() });
