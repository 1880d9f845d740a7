import { promptModeSchema } from '@rlm/prompts';
import { RlmError, replLanguageSchema } from '@rlm/protocol';
import { z } from 'zod';
import { BENCHMARK_NAMES, benchmarkNameSchema } from '../generators/generate-benchmark.js';
import { parseSize } from '../generators/parse-size.js';
import { OFFLINE_TRANSPORTS } from '../offline/offline-model.js';
import { attachDrivers, driverChoiceSchema } from './driver-choice.js';

/** A whole number of at least `min`, whose error says so (the CLI passes text that is not a number as is). */
function wholeNumber(min: number) {
  const expected = `expected a whole number of ${min} or more`;
  return z
    .number({ error: (issue) => `${expected}, got ${JSON.stringify(issue.input)}` })
    .int({ error: `${expected}` })
    .min(min, { error: (issue) => `${expected}, got ${String(issue.input)}` });
}

const count = wholeNumber(1);

const benchmarkSchema = z.string().transform((text, context) => {
  if (text.startsWith('file:') && text.length > 'file:'.length) {
    return { kind: 'file' as const, path: text.slice('file:'.length) };
  }
  const name = benchmarkNameSchema.safeParse(text);
  if (name.success) return { kind: 'builtin' as const, name: name.data };
  context.addIssue({
    code: 'custom',
    message: `expected ${BENCHMARK_NAMES.join(', ')} or file:PATH, got "${text}"`,
  });
  return z.NEVER;
});

/** A size in characters: a number, or text such as `8k`, `1.5m`. */
const sizeSchema = z.union([count, z.string()]).transform((size, context) => {
  if (typeof size === 'number') return size;
  try {
    return parseSize(size);
  } catch (error) {
    context.addIssue({ code: 'custom', message: (error as Error).message });
    return z.NEVER;
  }
});

/** The context size of generated tasks when no `sizes` are given, in characters. */
export const DEFAULT_EVAL_SIZE = 8_000;

/** How `runEvalCommand` shows progress on stderr. */
export const EVAL_PROGRESS_MODES = ['tree', 'plain', 'none'] as const;

/**
 * What `rlm eval` runs: the benchmark, the systems and how to run them. The one validation of
 * these options: the CLI maps each key to its flag, library callers pass the object directly.
 */
export const evalCommandOptionsSchema = z
  .strictObject({
    /**
     * `sniah`, `aggregate`, `pairs`, `multidoc`, `arc` (its generated suite, or the ARC task
     * files of the directory `tasks` names), or `file:PATH` (JSONL tasks, relative to `cwd`).
     */
    benchmark: benchmarkSchema,
    /**
     * Context sizes in characters (numbers, or text such as `8k`, `1m`); not for `arc`, which
     * refuses them (so the default is applied by the command, not here).
     * @default [DEFAULT_EVAL_SIZE] (8k)
     */
    sizes: z.array(sizeSchema).min(1).optional(),
    /**
     * Tasks per size (`arc`: tasks of its generated suite), or for `arc` a directory of task
     * files in the public ARC JSON format (relative to `cwd`). @default 1
     */
    tasks: z
      .union([z.number(), z.string().min(1)], {
        error: (issue) =>
          `expected a whole number of 1 or more, got ${JSON.stringify(issue.input)}`,
      })
      .default(1),
    /** Generator seed. @default 1 */
    seed: wholeNumber(0).default(1),
    /** sniah: needles per task (more than 1 asks for a set); not for `arc`. @default 1 */
    needles: count.optional(),
    /** @default ['rlm', 'base'] */
    systems: z
      .array(z.enum(['rlm', 'base']))
      .min(1)
      .default(['rlm', 'base']),
    /** Model id (`provider/model`, or `testkit:<policy>` to run offline). */
    model: z.string().min(1),
    /** Model behind `llm_query`. @default model */
    subModel: z.string().min(1).optional(),
    /** @default 1 for solver, 2 for coordinator (its children need a REPL) */
    maxDepth: count.optional(),
    maxIterations: count.optional(),
    /** Prompt modes: one rlm system per mode (`rlm-solver`, `rlm-coordinator`). @default ['solver'] */
    modes: z.array(promptModeSchema).min(1).default(['solver']),
    /**
     * The REPL language of the rlm systems: `python` needs `@rlm/sandbox-python` installed, and
     * offline `testkit:` policies write code in it. @default 'javascript'
     */
    repl: replLanguageSchema.default('javascript'),
    /**
     * Built-in drivers for the rlm systems: `NAME` goes to every mode's system it fits (its
     * front matter's modes, not its conflicts, and the REPL language), `MODE:NAME` to that mode's
     * system only. @default []
     */
    drivers: z.array(driverChoiceSchema).default([]),
    /** Attempts per task and system (pass@k). @default 1 */
    attempts: count.default(1),
    /** Attempts running at once. @default 1 */
    concurrency: count.default(1),
    /** No new attempt starts once the rows cost this much (USD). */
    maxCostUsd: z
      .number({ error: (issue) => `expected US dollars, got ${JSON.stringify(issue.input)}` })
      .positive({ error: 'expected more than 0 US dollars' })
      .optional(),
    /** Base system window in tokens. @default the model's */
    baseWindow: count.optional(),
    /** Output directory, relative to `cwd`. @default 'eval-results' */
    out: z.string().min(1).default('eval-results'),
    /** @default 'in-process' */
    offlineTransport: z.enum(OFFLINE_TRANSPORTS).default('in-process'),
    /** Keep finished rows in `out` and run only the rest. @default false */
    resume: z.boolean().default(false),
    /**
     * Replace the rows of an earlier eval in `out`; without it (or `resume`) an existing results
     * file is refused rather than silently emptied. @default false
     */
    force: z.boolean().default(false),
    /**
     * Answer repeated sub-calls of the rlm systems from a cache every attempt shares, as `rlm run
     * --cache` does: the door's SQLite store when it gives one (`EvalCommandIo.callCaches`), else
     * one in memory for this eval. @default false
     */
    cache: z.boolean().default(false),
    /**
     * `tree` redraws one progress line on a terminal, `plain` writes at most one line per second,
     * `none` nothing. @default 'tree' on a terminal, 'plain' otherwise
     */
    progress: z.enum(EVAL_PROGRESS_MODES).optional(),
  })
  .superRefine((options, context) => {
    const attached = attachDrivers(options.drivers, { modes: options.modes, repl: options.repl });
    if (!attached.ok) {
      for (const message of attached.issues) {
        context.addIssue({ code: 'custom', path: ['drivers'], message });
      }
    }
    const arc = options.benchmark.kind === 'builtin' && options.benchmark.name === 'arc';
    for (const key of ['sizes', 'needles'] as const) {
      if (arc && options[key] !== undefined) {
        context.addIssue({
          code: 'custom',
          path: [key],
          message: 'does not apply to the arc benchmark (its tasks are grids of their own size)',
        });
      }
    }
    if (typeof options.tasks === 'number') {
      const tasks = count.safeParse(options.tasks);
      if (!tasks.success) {
        const message = tasks.error.issues[0]?.message ?? 'expected a whole number of 1 or more';
        context.addIssue({ code: 'custom', path: ['tasks'], message });
      }
    } else if (!arc) {
      context.addIssue({
        code: 'custom',
        path: ['tasks'],
        message: `expected a whole number of 1 or more (a directory of ARC task files only with the arc benchmark), got "${options.tasks}"`,
      });
    }
    if (options.force && options.resume) {
      context.addIssue({
        code: 'custom',
        path: ['force'],
        message: 'replaces the earlier rows, while resume keeps them: pass one of the two',
      });
    }
  });
export type EvalCommandOptionsInput = z.input<typeof evalCommandOptionsSchema>;
export type EvalCommandOptions = z.output<typeof evalCommandOptionsSchema>;

/** One invalid option: its key and what was wrong. */
export interface EvalOptionIssue {
  key: keyof EvalCommandOptionsInput | '(root)';
  message: string;
}

/** The options, or every issue by key (for a front end that names its own flags). */
export function safeParseEvalCommandOptions(
  input: unknown,
): { ok: true; options: EvalCommandOptions } | { ok: false; issues: EvalOptionIssue[] } {
  const result = evalCommandOptionsSchema.safeParse(input);
  if (result.success) return { ok: true, options: result.data };
  return {
    ok: false,
    issues: result.error.issues.map((issue) => {
      const key = (issue.path[0] ?? '(root)') as EvalOptionIssue['key'];
      const given = typeof input === 'object' && input !== null && key in input;
      const missing = issue.code === 'invalid_type' && issue.path.length === 1 && !given;
      return { key, message: missing ? 'is required' : issue.message };
    }),
  };
}

/**
 * Validates `rlm eval` options.
 *
 * @throws RlmError `config.invalid` naming each bad key
 */
export function parseEvalCommandOptions(input: unknown): EvalCommandOptions {
  const result = safeParseEvalCommandOptions(input);
  if (result.ok) return result.options;
  const issues = result.issues.map((issue) => `${issue.key}: ${issue.message}`);
  throw new RlmError({
    code: 'config.invalid',
    message: `Invalid eval options: ${issues.join('; ')}`,
    details: { source: 'eval options', issues },
  });
}
