import { z } from 'zod';
import { jsonValueSchema } from './json-value.js';
import { modelPricingSchema } from './model-pricing.js';
import { replLanguageSchema } from './repl-language.js';
import { ANTHROPIC_EFFORTS } from './run-defaults.js';

const positiveInt = z.number().int().positive();

/**
 * Every limit a run can have, in one object: the CLI's flags, a server profile's caps, a caller's
 * request and MCP tool arguments all parse into it. An absent field means "no limit" (or, for
 * the fields with a default, the default from `run-defaults.ts`).
 */
export const runLimitsSchema = z.strictObject({
  /** Root iterations (model turns). @default DEFAULT_MAX_ITERATIONS */
  maxIterations: positiveInt.optional(),
  /** Depth at which calls become one-shot (the root is depth 0). @default DEFAULT_MAX_DEPTH */
  maxDepth: positiveInt.optional(),
  /** Input + output + cache tokens over the whole tree. */
  maxTokens: positiveInt.optional(),
  /** US dollars over the whole tree; refused at start on a model whose price is unknown. */
  maxCostUsd: z.number().positive().optional(),
  /** Wall-clock time of the whole tree. */
  maxWallTimeMs: positiveInt.optional(),
  /** `llm_query` and `rlm_query` calls over the whole tree; 0 allows none. */
  maxSubcalls: z.number().int().nonnegative().optional(),
  /**
   * The most a child run (`rlm_query`) receives of its parent's remaining budget, as a fraction
   * in (0, 1], for tokens, cost, sub-calls, iterations and wall time; siblings running at once
   * also split what remains. A lower value is the stricter one. @default 0.5 (the executor's
   * `DEFAULT_CHILD_BUDGET_SHARE`)
   */
  childBudgetShare: z.number().gt(0).max(1).optional(),
  /** Iterations in a row whose code failed. @default DEFAULT_MAX_CONSECUTIVE_ERRORS */
  maxConsecutiveErrors: positiveInt.optional(),
  /** Wall-clock limit of one code block. @default DEFAULT_BLOCK_TIMEOUT_MS */
  blockTimeoutMs: positiveInt.optional(),
  /** Characters of each block's output shown to the model. @default DEFAULT_MAX_OUTPUT_CHARS */
  maxOutputChars: positiveInt.optional(),
});
export type RunLimits = z.infer<typeof runLimitsSchema>;
/** A limit's name (`maxTokens`, …). */
export type RunLimitName = keyof RunLimits;
/** Every limit's name, in the schema's order. */
export const RUN_LIMIT_NAMES = Object.keys(runLimitsSchema.shape) as readonly RunLimitName[];

/** How the root works: it solves the task itself, or coordinates background tasks. */
export const runModeSchema = z.enum(['solver', 'coordinator']);
export type RunMode = z.infer<typeof runModeSchema>;

/**
 * A model id as `provider/model` (`anthropic/claude-sonnet-4-5`, `openai-compatible/llama3@URL`)
 * or an offline `testkit:<policy>`.
 */
export const modelIdSchema = z
  .string()
  .min(1, 'a model id is a non-empty string such as anthropic/claude-sonnet-4-5');

/**
 * The sub-call cache: identical `llm_query` calls (same model, system prompt, messages and
 * sampling parameters) are answered from a store instead of the provider, at no cost. `memory`
 * lives as long as the runner; `sqlite` and `postgres` are the door's database, shared by every
 * run on it (CLI runs on one machine, server replicas).
 */
export const runCacheSchema = z.strictObject({
  store: z.enum(['memory', 'sqlite', 'postgres']),
  /** Entries older than this are not read (and are replaced when the call is made again). @default no expiry */
  ttlMs: positiveInt.optional(),
  /**
   * Which calls may share an answer: those of one invocation (`run`), of one run tree (`tree`),
   * or every run on the store (`shared`). @default 'shared'
   */
  scope: z.enum(['run', 'tree', 'shared']).default('shared'),
  /** Cache calls sent with a temperature above 0 too (their answers vary by design). @default false */
  includeSampled: z.boolean().default(false),
});
export type RunCache = z.output<typeof runCacheSchema>;
export type RunCacheInput = z.input<typeof runCacheSchema>;

/**
 * One run, described once. Every door (CLI flags and config files, HTTP bodies and profiles, MCP
 * tool arguments, eval tasks) parses its input into this at its edge; `createRunner` in
 * `@rlm/executor` is the one place that turns it into a run.
 */
export const runSettingsSchema = z.strictObject({
  /** The root model (and children's model unless `subModel` is set). */
  model: modelIdSchema,
  /** The model behind `llm_query` and children. @default model */
  subModel: modelIdSchema.optional(),
  /** The REPL language of every sandbox in the tree. @default 'javascript' */
  repl: replLanguageSchema.default('javascript'),
  /** @default 'solver' */
  mode: runModeSchema.default('solver'),
  /** Built-in driver names appended to the root prompt (files are read at the door and passed parsed). */
  drivers: z.array(z.string().min(1)).default([]),
  limits: runLimitsSchema.default({}),
  /**
   * Host tools on or off: off leaves out the context helpers (`grep`, `find_all`, …) and every host
   * tool, giving the model the bare REPL. @default true
   */
  tools: z.boolean().default(true),
  /** A JSON Schema the answer must match; the answer is then its JSON text. */
  outputSchema: z.record(z.string(), jsonValueSchema).optional(),
  /**
   * A price (USD per million tokens) for models whose client knows none (a local server), so a
   * cost cap can be enforced. Operators set it; a caller never does.
   */
  pricing: modelPricingSchema.optional(),
  /** `anthropic/` models: extended thinking with this many budget tokens. */
  thinkingBudget: z
    .number()
    .int()
    .min(1024, 'the thinking budget is at least 1024 tokens')
    .optional(),
  /** `anthropic/` models: `output_config.effort`. */
  effort: z.enum(ANTHROPIC_EFFORTS).optional(),
  /** Coordinator runs: how background tasks (`delegate`, `delegate_batch`) run. */
  dispatch: z
    .strictObject({
      /** The model a task runs on unless `delegate` names one. @default subModel, else model */
      model: modelIdSchema.optional(),
    })
    .optional(),
  /** Answer repeated sub-calls from a cache. @default no cache */
  cache: runCacheSchema.optional(),
  /**
   * The escalation ladder, cheapest first: a child run (`rlm_query`, a background task) that
   * fails — `escalateAfterErrors` turns in a row whose code failed, or its turns run out without
   * an answer — is run again once on the next model up (the first rung for a child on a model
   * off the ladder), inside the same tree budget. A child on the last rung is not run again.
   * @default no escalation
   */
  escalate: z.array(modelIdSchema).min(1, 'escalate names at least one model').optional(),
  /**
   * With `escalate`: turns in a row whose code failed after which a child that can escalate
   * stops and is run on the next model up. @default DEFAULT_ESCALATE_AFTER_ERRORS (3)
   */
  escalateAfterErrors: positiveInt.optional(),
});
/** Settings after defaults. */
export type RunSettings = z.output<typeof runSettingsSchema>;
/** Settings as a door writes them (defaults optional). */
export type RunSettingsInput = z.input<typeof runSettingsSchema>;
