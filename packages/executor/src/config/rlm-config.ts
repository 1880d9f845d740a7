import type { Tracer, TracerProvider } from '@opentelemetry/api';
import type { RunStore, Scratchpad } from '@rlm/memory';
import {
  DEFAULT_BLOCK_TIMEOUT_MS,
  DEFAULT_ESCALATE_AFTER_ERRORS,
  DEFAULT_MAX_CONSECUTIVE_ERRORS,
  DEFAULT_MAX_OUTPUT_CHARS,
  isReservedName,
  type LanguageModel,
  parseSchema,
  RlmError,
  replLanguageSchema,
  runLimitsSchema,
} from '@rlm/protocol';
import { CONTEXT_HELPER_NAMES } from '@rlm/sandbox';
import type { TrajectorySink } from '@rlm/trace';
import { z } from 'zod';
import { isOutputSchema, type OutputSchema } from '../output/output-spec.js';
import type { RunEventHandler } from '../run/event-bus.js';
import { pythonConfigIssues } from './python-config-issues.js';
import { DEFAULT_MAX_DEPTH, DEFAULT_MAX_ITERATIONS } from './run-defaults.js';
import type { ToolDefinition } from './tool-definition.js';

/** How many batched sub-calls or children run at once. @default 8 */
export const DEFAULT_MAX_CONCURRENCY = 8;
/** Code blocks run per model response; the rest are skipped and the model is told. @default 10 */
export const DEFAULT_MAX_BLOCKS_PER_ITERATION = 10;

/** Background tasks running at once. @default 4 */
export const DEFAULT_DISPATCH_CONCURRENCY = 4;
/** Wall-clock limit of one background task. @default 600_000 */
export const DEFAULT_TASK_TIMEOUT_MS = 600_000;
/** Characters of a task's output in its `summary` (the full output is in the scratchpad). @default 500 */
export const DEFAULT_TASK_SUMMARY_CHARS = 500;

/** Share of the model's context window at which the root conversation is compacted. @default 0.8 */
export const DEFAULT_COMPACTION_FRACTION = 0.8;

/** Names the dispatcher defines in the root sandbox; tools may not use them there. */
const DISPATCHER_NAMES: readonly string[] = [
  'delegate',
  'delegate_batch',
  'stream_results',
  'await_results',
  'inspect',
  'set_answer',
  '__rlm_delegate',
];

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function isLanguageModel(value: unknown): value is LanguageModel {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as LanguageModel).id === 'string' &&
    typeof (value as LanguageModel).complete === 'function'
  );
}

const languageModelSchema = z.custom<LanguageModel>(isLanguageModel, {
  message: 'expected a LanguageModel (an object with `id: string` and `complete(request)`)',
});

const toolSchema = z.custom<ToolDefinition>(
  (value) =>
    typeof value === 'object' &&
    value !== null &&
    typeof (value as ToolDefinition).description === 'string' &&
    typeof (value as ToolDefinition).call === 'function',
  { message: 'expected a tool `{ description: string, call(args, { signal }) }`' },
);

const sinkSchema = z.custom<TrajectorySink>(
  (value) =>
    typeof value === 'object' &&
    value !== null &&
    typeof (value as TrajectorySink).write === 'function' &&
    typeof (value as TrajectorySink).close === 'function',
  { message: 'expected `{ dir: string }` or a TrajectorySink with write() and close()' },
);

const positiveInt = z.number().int().positive();

/**
 * Tree-wide budgets: every model call anywhere in the run tree counts against them. The fields
 * are the run contract's (`runLimitsSchema` in @rlm/protocol), declared there once.
 */
export const budgetConfigSchema = runLimitsSchema
  .pick({
    maxTokens: true,
    maxCostUsd: true,
    maxWallTimeMs: true,
    maxSubcalls: true,
    childBudgetShare: true,
  })
  .extend({
    /** @default DEFAULT_MAX_CONSECUTIVE_ERRORS */
    maxConsecutiveErrors: positiveInt.default(DEFAULT_MAX_CONSECUTIVE_ERRORS),
  });
/** `budget` as callers write it. */
export type BudgetConfig = z.input<typeof budgetConfigSchema>;

/** Limits of the sandbox and of each turn. */
export const limitsConfigSchema = z.strictObject({
  /** @default DEFAULT_BLOCK_TIMEOUT_MS */
  blockTimeoutMs: positiveInt.default(DEFAULT_BLOCK_TIMEOUT_MS),
  /** CPU time a block may spend in guest code between host calls; the sandbox's default when absent. */
  cpuSliceMs: positiveInt.optional(),
  /** Sandbox memory cap; the sandbox's default when absent. */
  memoryBytes: z
    .number()
    .int()
    .min(16 * 1024 * 1024, 'memoryBytes must be at least 16 MiB (16777216)')
    .optional(),
  /** @default DEFAULT_MAX_BLOCKS_PER_ITERATION */
  maxBlocksPerIteration: positiveInt.default(DEFAULT_MAX_BLOCKS_PER_ITERATION),
  /** Characters of each block's output shown to the model. @default DEFAULT_MAX_OUTPUT_CHARS */
  maxOutputChars: positiveInt.default(DEFAULT_MAX_OUTPUT_CHARS),
});
/** `limits` as callers write it. */
export type LimitsConfig = z.input<typeof limitsConfigSchema>;

/** Background tasks started with `delegate` (coordinator dispatch). */
export const dispatchConfigSchema = z.strictObject({
  /** @default DEFAULT_DISPATCH_CONCURRENCY */
  maxConcurrency: positiveInt.default(DEFAULT_DISPATCH_CONCURRENCY),
  /** @default DEFAULT_TASK_TIMEOUT_MS */
  taskTimeoutMs: positiveInt.default(DEFAULT_TASK_TIMEOUT_MS),
  /** @default DEFAULT_TASK_SUMMARY_CHARS */
  summaryChars: positiveInt.default(DEFAULT_TASK_SUMMARY_CHARS),
  /** The model tasks run on unless `delegate` names one. @default subModel, else model */
  model: languageModelSchema.optional(),
});
/** `dispatch` as callers write it. */
export type DispatchConfig = z.input<typeof dispatchConfigSchema>;

const scratchpadSchema = z.custom<Scratchpad>(
  (value) =>
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Scratchpad).get === 'function' &&
    typeof (value as Scratchpad).set === 'function',
  { message: 'expected a Scratchpad from @rlm/memory (with get() and set())' },
);

/** The configuration `createRLM` accepts; every field is validated with a message naming it. */
export const rlmConfigSchema = z
  .strictObject({
    /** The root model (and children's model unless `rlm_query` names another). */
    model: languageModelSchema,
    /** The model behind `llm_query`. @default model */
    subModel: languageModelSchema.optional(),
    /** Extra models code may pick with `opts.model` (matched by id). */
    models: z.array(languageModelSchema).default([]),
    /**
     * The escalation ladder, cheapest first: a child run that fails (`escalateAfterErrors` turns
     * in a row whose code failed, or its turns ran out without an answer) runs again once on the
     * next model up, inside the tree's budget. Code cannot pick these models by name. @default []
     */
    escalate: z.array(languageModelSchema).default([]),
    /** Failed turns in a row after which a child that can escalate does. @default DEFAULT_ESCALATE_AFTER_ERRORS */
    escalateAfterErrors: positiveInt.default(DEFAULT_ESCALATE_AFTER_ERRORS),
    /** Depth at which calls become plain one-shot calls (the root is depth 0). @default DEFAULT_MAX_DEPTH */
    maxDepth: positiveInt.default(DEFAULT_MAX_DEPTH),
    /** @default DEFAULT_MAX_ITERATIONS */
    maxIterations: positiveInt.default(DEFAULT_MAX_ITERATIONS),
    /** Iterations per depth (`[root, child, grandchild…]`); missing depths use `maxIterations`. */
    iterationsForDepth: z.array(positiveInt).optional(),
    /** @default 'solver' */
    promptMode: z.enum(['solver', 'coordinator']).default('solver'),
    /** Prompt drivers from @rlm/prompts, appended to the root prompt. */
    drivers: z.array(z.unknown()).default([]),
    /**
     * Instructions put before the root's system prompt, a blank line between (the server's agent
     * turns put their layered prompt here). The root model receives the combined text, and the
     * trajectory and `promptVersion` record it; children and `llm_query` keep their own prompts.
     */
    systemPromptPrefix: z.string().min(1).optional(),
    /** Host tools callable from code by name. */
    tools: z
      .record(z.string(), toolSchema)
      .superRefine((tools, context) => {
        for (const name of Object.keys(tools)) {
          if (!IDENTIFIER.test(name)) {
            context.addIssue({
              code: 'custom',
              path: [name],
              message: 'tool names must be JavaScript identifiers',
            });
          } else if (isReservedName(name)) {
            context.addIssue({
              code: 'custom',
              path: [name],
              message: `'${name}' is a reserved name`,
            });
          }
        }
      })
      .default({}),
    /**
     * Give each sandbox the host context helpers (`grep`, `find_all`, `count`, `lines`, `chunk`)
     * and document them in the prompts. Off gives the reference engine's bare REPL (ablations,
     * the CLI's `--no-tools`). @default true
     */
    contextHelpers: z.boolean().default(true),
    /**
     * The language of every REPL in the tree: `javascript` (QuickJS, `@rlm/sandbox`) or `python`
     * (Pyodide, the optional `@rlm/sandbox-python`, loaded only when chosen). Prompts, examples and
     * host-function calling conventions follow it; `rlm_query(prompt, { repl })` changes it for one
     * child (and its descendants). @default 'javascript'
     */
    repl: replLanguageSchema.default('javascript'),
    budget: budgetConfigSchema.default({ maxConsecutiveErrors: DEFAULT_MAX_CONSECUTIVE_ERRORS }),
    limits: limitsConfigSchema.default({
      blockTimeoutMs: DEFAULT_BLOCK_TIMEOUT_MS,
      maxBlocksPerIteration: DEFAULT_MAX_BLOCKS_PER_ITERATION,
      maxOutputChars: DEFAULT_MAX_OUTPUT_CHARS,
    }),
    /** @default DEFAULT_MAX_CONCURRENCY */
    maxConcurrency: positiveInt.default(DEFAULT_MAX_CONCURRENCY),
    /**
     * Give the root the background-task verbs (`delegate`, `stream_results`, `await_results`,
     * `inspect`, `set_answer`) and document them in its prompt. @default promptMode === 'coordinator'
     */
    dispatcher: z.boolean().optional(),
    dispatch: dispatchConfigSchema.default({
      maxConcurrency: DEFAULT_DISPATCH_CONCURRENCY,
      taskTimeoutMs: DEFAULT_TASK_TIMEOUT_MS,
      summaryChars: DEFAULT_TASK_SUMMARY_CHARS,
    }),
    /** Where full task results go (`task:<id>`); a fresh in-memory store per run when absent. */
    scratchpad: scratchpadSchema.optional(),
    /** A `set_answer` whose confidence reaches this (0–1) ends the run; never, when absent. */
    confidenceThreshold: z.number().min(0).max(1).optional(),
    /**
     * Compact the root conversation when it reaches `fraction` of the root model's context window
     * (tokens from usage, estimated when absent); off when absent. Needs `model.contextWindow`.
     */
    compaction: z
      .strictObject({
        /** @default DEFAULT_COMPACTION_FRACTION */
        fraction: z.number().gt(0).max(1).default(DEFAULT_COMPACTION_FRACTION),
      })
      .optional(),
    /**
     * Where the root checkpoints each completed turn (runs, status, checkpoints), so `resume(runId)`
     * can continue it after a crash. A coordinator's checkpoint keeps its background tasks too:
     * finished ones are not run again, unfinished ones start again.
     */
    runStore: z
      .custom<RunStore>(
        (value) =>
          typeof value === 'object' &&
          value !== null &&
          typeof (value as RunStore).saveCheckpoint === 'function' &&
          typeof (value as RunStore).latestCheckpoint === 'function',
        { message: 'expected a RunStore from @rlm/memory (store.runs)' },
      )
      .optional(),
    /**
     * A zod schema the root's final answer must match (a typed answer); `completion()`'s own
     * `output` replaces it for one run. The prompt shows its JSON Schema.
     */
    output: z
      .custom<OutputSchema>(isOutputSchema, {
        message: 'expected a zod schema, such as z.object({…})',
      })
      .optional(),
    /** Refuse, once, a final answer given on turn 0 before any code ran. @default true */
    firstTurnGuard: z.boolean().default(true),
    /** Extra fence tags whose blocks run (e.g. `['js']`); `repl` always runs. */
    codeLanguages: z.array(z.string().min(1)).default([]),
    trajectory: z.union([z.strictObject({ dir: z.string().min(1) }), sinkSchema]).optional(),
    onEvent: z.custom<RunEventHandler>((value) => typeof value === 'function').optional(),
    /**
     * The OpenTelemetry tracer the run's spans go to. Wins over `tracerProvider`; without either,
     * the globally registered provider's (a no-op until the application registers an SDK).
     */
    tracer: z
      .custom<Tracer>(
        (value) =>
          typeof value === 'object' &&
          value !== null &&
          typeof (value as Tracer).startSpan === 'function',
        { message: 'expected an OpenTelemetry Tracer (with startSpan())' },
      )
      .optional(),
    /** An OpenTelemetry tracer provider to take the tracer from (`@rlm/executor` scope). */
    tracerProvider: z
      .custom<TracerProvider>(
        (value) =>
          typeof value === 'object' &&
          value !== null &&
          typeof (value as TracerProvider).getTracer === 'function',
        { message: 'expected an OpenTelemetry TracerProvider (with getTracer())' },
      )
      .optional(),
    /** Where sandboxes run: `worker` keeps spinning code off the host event loop. @default 'worker' */
    isolation: z.enum(['worker', 'inline']).default('worker'),
    /** Clock in epoch ms (tests inject one). @default Date.now */
    now: z.custom<() => number>((value) => typeof value === 'function').optional(),
    /** Root run id factory (children derive theirs). @default crypto.randomUUID */
    generateId: z.custom<() => string>((value) => typeof value === 'function').optional(),
  })
  .superRefine((config, context) => {
    // A cost cap needs a price for every model a call may go to; ignoring it would be a lie.
    if (config.budget.maxCostUsd !== undefined) {
      for (const model of new Set([
        config.model,
        config.subModel,
        config.dispatch.model,
        ...config.models,
        ...config.escalate,
      ])) {
        if (model === undefined || model.pricing !== undefined || model.reportsCost === true) {
          continue;
        }
        context.addIssue({
          code: 'custom',
          path: ['budget', 'maxCostUsd'],
          message: `the price of ${model.id} is unknown, so a cost budget cannot be enforced: pass \`pricing\` (USD per million tokens) to its client, or leave out maxCostUsd`,
        });
      }
    }
    if (config.repl === 'python') {
      for (const issue of pythonConfigIssues(config))
        context.addIssue({ code: 'custom', ...issue });
    }
    for (const [name, message] of shadowedToolNames(config)) {
      context.addIssue({ code: 'custom', path: ['tools', name], message });
    }
  });

/** Tools whose names the root sandbox defines itself, each with why. */
function shadowedToolNames(config: {
  tools: Record<string, unknown>;
  contextHelpers: boolean;
  dispatcher?: boolean | undefined;
  promptMode: string;
}): [string, string][] {
  const dispatcher = config.dispatcher ?? config.promptMode === 'coordinator';
  return Object.keys(config.tools).flatMap((name): [string, string][] => {
    // The sandbox refuses a function named like a helper; said here, the caller learns it from
    // createRLM instead of from a run that ends in an error.
    if (config.contextHelpers && CONTEXT_HELPER_NAMES.includes(name)) {
      return [
        [
          name,
          `'${name}' is a context helper: rename the tool (an MCP tool set takes a prefix) or set contextHelpers: false`,
        ],
      ];
    }
    // The dispatcher's verbs are added after the tools: a tool of the same name would be hidden.
    if (dispatcher && DISPATCHER_NAMES.includes(name)) {
      return [[name, `'${name}' is a dispatcher function (the root has the dispatcher)`]];
    }
    return [];
  });
}

/** What `createRLM` accepts. */
export type RLMConfig = z.input<typeof rlmConfigSchema>;
/** The configuration after validation and defaults. */
export type ResolvedRLMConfig = z.output<typeof rlmConfigSchema>;

/**
 * Validates a configuration and applies defaults.
 *
 * @throws RlmError `config.invalid` naming every bad field (also a `maxCostUsd` budget on a model
 *   whose price is unknown)
 */
export function parseRLMConfig(config: unknown): ResolvedRLMConfig {
  if (typeof config !== 'object' || config === null) {
    throw new RlmError({
      code: 'config.invalid',
      message: 'Invalid RLM config: expected an object with at least `model`.',
      details: { source: 'RLM config', issues: ['(root): expected an object'] },
    });
  }
  return parseSchema(rlmConfigSchema, config, {
    what: 'RLM config',
    code: 'config.invalid',
  });
}
