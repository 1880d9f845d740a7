import { BUILTIN_DRIVER_NAMES } from '@rlm/prompts';
import { RlmError } from '@rlm/protocol';
import { z } from 'zod';
import { benchmarkNameSchema } from '../generators/generate-benchmark.js';
import { parseSize } from '../generators/parse-size.js';
import { OFFLINE_TRANSPORTS } from '../offline/offline-model.js';
import type { ParsedFlags } from './parse-flags.js';

/** Flags of `rlm eval` that take a value. */
export const EVAL_VALUE_FLAGS = [
  'benchmark',
  'sizes',
  'tasks',
  'seed',
  'needles',
  'systems',
  'model',
  'sub-model',
  'max-depth',
  'max-iterations',
  'prompt-mode',
  'drivers',
  'attempts',
  'concurrency',
  'max-cost-usd',
  'base-window',
  'out',
  'offline-transport',
] as const;
/** Flags of `rlm eval` that stand alone. */
export const EVAL_BOOLEAN_FLAGS = ['resume', 'help'] as const;

const list = z.string().transform((text) =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== ''),
);
const count = z.coerce.number().int().positive();

const benchmarkSchema = z.string().transform((text, context) => {
  if (text.startsWith('file:') && text.length > 'file:'.length) {
    return { kind: 'file' as const, path: text.slice('file:'.length) };
  }
  const name = benchmarkNameSchema.safeParse(text);
  if (name.success) return { kind: 'builtin' as const, name: name.data };
  context.addIssue({
    code: 'custom',
    message: `expected sniah, aggregate, pairs, multidoc or file:PATH, got "${text}"`,
  });
  return z.NEVER;
});

/** `rlm eval` options after validation. */
export const evalCommandOptionsSchema = z.object({
  benchmark: benchmarkSchema,
  sizes: z
    .string()
    .default('8k')
    .transform((text, context) => {
      try {
        return text.split(',').map((size) => parseSize(size));
      } catch (error) {
        context.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    }),
  tasks: count.default(1),
  seed: z.coerce.number().int().nonnegative().default(1),
  needles: count.default(1),
  systems: list.pipe(z.array(z.enum(['rlm', 'base'])).min(1)).default(['rlm', 'base']),
  model: z.string().min(1),
  'sub-model': z.string().min(1).optional(),
  'max-depth': count.optional(),
  'max-iterations': count.optional(),
  'prompt-mode': list.pipe(z.array(z.enum(['solver', 'coordinator'])).min(1)).default(['solver']),
  drivers: list
    .pipe(
      z.array(
        z.string().refine((name) => (BUILTIN_DRIVER_NAMES as readonly string[]).includes(name), {
          error: (issue) =>
            `unknown driver "${String(issue.input)}" (built-ins: ${BUILTIN_DRIVER_NAMES.join(', ')})`,
        }),
      ),
    )
    .default([]),
  attempts: count.default(1),
  concurrency: count.default(1),
  'max-cost-usd': z.coerce.number().positive().optional(),
  'base-window': count.optional(),
  out: z.string().min(1).default('eval-results'),
  'offline-transport': z.enum(OFFLINE_TRANSPORTS).default('in-process'),
  resume: z.literal(true).optional(),
});
export type EvalCommandOptions = z.output<typeof evalCommandOptionsSchema>;

/**
 * Validates parsed flags.
 *
 * @throws RlmError `cli.usage` naming the first bad flag and what it expects
 */
export function parseEvalCommandOptions(flags: ParsedFlags): EvalCommandOptions {
  const result = evalCommandOptionsSchema.safeParse(flags.values);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const option = `--${String(issue?.path[0] ?? 'benchmark')}`;
  const message =
    issue?.code === 'invalid_type' && issue.input === undefined
      ? 'is required'
      : (issue?.message ?? 'is invalid');
  throw new RlmError({
    code: 'cli.usage',
    message: `${option} ${message}`,
    details: { option },
  });
}
