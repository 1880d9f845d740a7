import {
  ANTHROPIC_EFFORTS,
  DEFAULT_MAX_DEPTH,
  DEFAULT_MAX_ITERATIONS,
  DEFAULT_MODEL_ID,
} from '@rlm/executor/defaults';
import { runLimitsSchema } from '@rlm/protocol';
import { z } from 'zod';
import { DEFAULT_REPL_CONFIG, replConfigShape } from './repl-key.js';

const positiveInt = z.number().int().positive();
/** The budget fields, declared once in the run contract (`runLimitsSchema`). */
const limit = runLimitsSchema.shape;

/** Which calls share cached answers (`--cache-scope`), as the run contract names them. */
export const CACHE_SCOPES = ['run', 'tree', 'shared'] as const;

/** How progress shows on stderr (`--progress`). */
export const PROGRESS_MODES = ['tree', 'plain', 'none'] as const;
export type ProgressMode = (typeof PROGRESS_MODES)[number];

/**
 * Every configuration key `rlm` understands, as one strict schema: config files, environment
 * variables and flags are all validated by it, so an unknown or mistyped key is an error that
 * names its source instead of being silently ignored.
 */
export const cliConfigSchema = z.strictObject({
  /** Root model id: `anthropic/<model>`, `openai/<model>`, `openai-compatible/<model>@<baseUrl>` or `testkit:<policy>`. */
  model: z.string().min(1),
  /** Model for `llm_query` sub-calls and children; the root model when unset. */
  subModel: z.string().min(1).optional(),
  /** Coordinator mode: the model background tasks run on; the sub-model when unset. */
  taskModel: z.string().min(1).optional(),
  /** The escalation ladder, cheapest first (see the run contract's `escalate`). */
  escalate: z.array(z.string().min(1)).min(1, 'escalate names at least one model').optional(),
  /** With `escalate`: failing turns in a row after which a child escalates. */
  escalateAfterErrors: positiveInt.optional(),
  /** Depth at which calls become one-shot (the root is depth 0, so 1 means no child REPLs). */
  maxDepth: limit.maxDepth.unwrap(),
  maxIterations: limit.maxIterations.unwrap(),
  maxTokens: limit.maxTokens,
  maxCostUsd: limit.maxCostUsd,
  /** USD per million input tokens, for models whose price rlm does not know (with `outputPricePerMTok`). */
  inputPricePerMTok: z.number().nonnegative().optional(),
  /** USD per million output tokens, for models whose price rlm does not know. */
  outputPricePerMTok: z.number().nonnegative().optional(),
  /** `anthropic/` models: extended thinking with this many budget tokens (at least 1024), billed as output. */
  thinkingBudget: z
    .number()
    .int()
    .min(1024, 'the thinking budget is at least 1024 tokens')
    .optional(),
  /** `anthropic/` models: how much effort the model spends (`output_config.effort`). */
  effort: z.enum(ANTHROPIC_EFFORTS).optional(),
  maxWallTimeMs: limit.maxWallTimeMs,
  maxSubcalls: limit.maxSubcalls,
  maxConsecutiveErrors: limit.maxConsecutiveErrors,
  blockTimeoutMs: limit.blockTimeoutMs,
  mode: z.enum(['solver', 'coordinator']),
  /** The REPL language: `javascript`, or `python` (with `@rlm/sandbox-python` installed). */
  ...replConfigShape,
  /** Paths of driver markdown files appended to the root system prompt. */
  drivers: z.array(z.string().min(1)),
  /**
   * Host tools on or off: off leaves out the sandbox's context helpers (`grep`, `find_all`, …)
   * and every tool module, giving the model the bare REPL.
   */
  tools: z.boolean(),
  /** ES modules whose exports are host tools (`{ name: { description, call } }`), callable from code. */
  toolModules: z.array(z.string().min(1)),
  /** Where trajectories are written; `<data dir>/trajectories` when unset. */
  trajectoryDir: z.string().min(1).optional(),
  /** The SQLite file where runs and their checkpoints are kept (for `rlm resume`); `<data dir>/runs.db` when unset. */
  runStore: z.string().min(1).optional(),
  /**
   * The sub-call cache: repeated identical sub-calls are answered from the run store's SQLite
   * file (shared by every run on this machine) at no cost.
   */
  cache: z.boolean().optional(),
  /** Which calls share cached answers: one invocation, one run tree, or every run (with `cache`). */
  cacheScope: z.enum(CACHE_SCOPES).optional(),
  /** Cached answers older than this are not used (with `cache`). */
  cacheTtlMs: positiveInt.optional(),
  /** Cache calls a client sends with a temperature above 0 too (with `cache`). */
  cacheIncludeSampled: z.boolean().optional(),
  /**
   * How progress shows on stderr: `tree` (a live view), `plain` (about a line per turn or
   * second, for logs) or `none`; unset means `tree` on a terminal and `plain` otherwise.
   */
  progress: z.enum(PROGRESS_MODES).optional(),
  /** The largest context (all inputs together) `rlm run` loads, in bytes. */
  maxContextBytes: positiveInt,
  /** Globs a directory context keeps (all files when empty). */
  include: z.array(z.string().min(1)),
  /** Globs a directory context skips. */
  exclude: z.array(z.string().min(1)),
  /**
   * `rlm mcp`: model ids a connected client may choose for `rlm_query` besides `model`. A client
   * never names an endpoint or a key; by default it may choose nothing but `model`.
   */
  allowModels: z.array(z.string().min(1)),
});

/** The effective configuration of one `rlm` invocation. */
export type CliConfig = z.infer<typeof cliConfigSchema>;

/** One layer (file, environment or flags): any subset of the keys. */
export const partialCliConfigSchema = cliConfigSchema.partial();
export type PartialCliConfig = z.infer<typeof partialCliConfigSchema>;

/** A configuration key. */
export type ConfigKey = keyof CliConfig;

/** 100 MB: large enough for real corpora, small enough to stop a mistaken `--context /`. */
export const DEFAULT_MAX_CONTEXT_BYTES = 100_000_000;

/** Directories nobody means to feed a model when they pass a project folder. */
export const DEFAULT_EXCLUDE: readonly string[] = [
  '**/node_modules/**',
  '**/.git/**',
  '**/dist/**',
];

/** The lowest layer of the configuration. */
export const DEFAULT_CONFIG: CliConfig = {
  model: DEFAULT_MODEL_ID,
  maxDepth: DEFAULT_MAX_DEPTH,
  maxIterations: DEFAULT_MAX_ITERATIONS,
  mode: 'solver',
  ...DEFAULT_REPL_CONFIG,
  drivers: [],
  tools: true,
  toolModules: [],
  maxContextBytes: DEFAULT_MAX_CONTEXT_BYTES,
  include: [],
  exclude: [...DEFAULT_EXCLUDE],
  allowModels: [],
};
