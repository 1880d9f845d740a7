import { describeIssues, type JsonValue, RlmError } from '@rlm/protocol';
import { z } from 'zod';
import {
  FLAGS,
  type HelperArguments,
  type HelperCaps,
  type HelperPattern,
  type HelperRequest,
  helperRequest,
  TARGET_NAME,
  withoutTrailingNulls,
} from './helper-request.js';
import { MAX_HELPER_ITEMS } from './scan-operations.js';

/**
 * The helpers' argument schemas: the full check of a helper call, and the source of every message
 * about bad arguments. Loaded only when `quickHelperCall` (helper-request.ts) cannot tell that a
 * call is valid, since loading zod is slow on a fresh thread.
 */

const targetSchema = z
  .union([z.number().int().nonnegative(), z.string().regex(TARGET_NAME)])
  .optional();
const maxSchema = z.number().int().positive().max(MAX_HELPER_ITEMS).optional();

/**
 * How a REPL's scaffold passes patterns: the schema of a pattern argument and, when patterns may
 * also take flags as an option, the schema of that option.
 */
export interface PatternArguments<TPattern> {
  pattern: z.ZodType<TPattern>;
  flags?: z.ZodType<string | undefined>;
}

/** The schemas of every helper's arguments, for one way of passing patterns. */
export function helperArgumentSchemas<TPattern>(patterns: PatternArguments<TPattern>) {
  const flags = patterns.flags === undefined ? {} : { flags: patterns.flags };
  return {
    grep: z.tuple([
      patterns.pattern,
      z
        .object({
          ...flags,
          context: z.number().int().min(0).max(50).optional(),
          max: maxSchema,
          target: targetSchema,
        })
        .strict()
        .optional(),
    ]),
    find_all: z.tuple([
      patterns.pattern,
      z
        .object({ ...flags, max: maxSchema, target: targetSchema })
        .strict()
        .optional(),
    ]),
    count: z.tuple([
      patterns.pattern,
      z
        .object({ ...flags, target: targetSchema })
        .strict()
        .optional(),
    ]),
    lines: z.tuple([
      z.number().int().positive(),
      z.number().int().positive().nullable().optional(),
      z.object({ target: targetSchema }).strict().optional(),
    ]),
    chunk: z.tuple([
      z.number().int().positive(),
      z
        .object({
          overlap: z.number().int().nonnegative().optional(),
          max: maxSchema,
          target: targetSchema,
        })
        .strict()
        .optional(),
    ]),
  };
}

export type HelperArgumentSchemas<TPattern> = ReturnType<typeof helperArgumentSchemas<TPattern>>;

/** The JavaScript scaffold's patterns: a source string or a RegExp's source and flags. */
const JAVASCRIPT_SCHEMAS = helperArgumentSchemas<HelperPattern>({
  pattern: z.union([z.string(), z.object({ source: z.string(), flags: z.string() }).strict()]),
  flags: z.string().regex(FLAGS, 'flags may only use d, g, i, m, s, u, v, y').optional(),
});

function parse<T extends z.ZodType>(helper: string, schema: T, args: JsonValue[]): z.output<T> {
  const result = schema.safeParse(withoutTrailingNulls(args));
  if (result.success) return result.data;
  const issues = describeIssues(result.error).join('; ');
  throw new RlmError({
    code: 'sandbox.invalid_value',
    message: `${helper}: invalid arguments (${issues})`,
    details: { name: helper, reason: issues },
  });
}

/** A helper call's arguments with the pattern as the scaffold passed it. */
export type CheckedArguments<TPattern> =
  | (Omit<Extract<HelperArguments, { helper: 'grep' | 'find_all' | 'count' }>, 'pattern'> & {
      pattern: TPattern;
    })
  | Extract<HelperArguments, { helper: 'lines' | 'chunk' }>;

/**
 * The arguments of a helper call, checked by `schemas`.
 *
 * @throws RlmError `sandbox.invalid_value` (bad arguments, unknown helper)
 */
export function checkHelperArguments<TPattern>(
  helper: string,
  args: JsonValue[],
  schemas: HelperArgumentSchemas<TPattern>,
): CheckedArguments<TPattern> {
  switch (helper) {
    case 'grep':
    case 'find_all':
    case 'count': {
      const [pattern, options] = parse(helper, schemas[helper], args);
      return { helper, pattern, options } as CheckedArguments<TPattern>;
    }
    case 'lines': {
      const [start, end, options] = parse(helper, schemas.lines, args);
      return { helper, start, end, options };
    }
    case 'chunk': {
      const [size, options] = parse(helper, schemas.chunk, args);
      return { helper, size, options };
    }
    default:
      throw new RlmError({
        code: 'sandbox.invalid_value',
        message: `no context helper named ${helper}`,
        details: { name: helper, reason: 'unknown helper' },
      });
  }
}

/**
 * Checks a JavaScript helper call's arguments and turns them into a scan.
 *
 * @throws RlmError `sandbox.invalid_value` (bad arguments), `sandbox.invalid_pattern`
 */
export function parseHelperCall(
  helper: string,
  args: JsonValue[],
  caps: HelperCaps,
): HelperRequest {
  return helperRequest(checkHelperArguments(helper, args, JAVASCRIPT_SCHEMAS), caps);
}
