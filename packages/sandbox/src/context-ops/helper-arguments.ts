import { describeIssues, type JsonValue, RlmError } from '@rlm/protocol';
import { z } from 'zod';
import {
  FLAGS,
  type HelperArguments,
  type HelperCaps,
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

const patternSchema = z.union([
  z.string(),
  z.object({ source: z.string(), flags: z.string() }).strict(),
]);
const targetSchema = z
  .union([z.number().int().nonnegative(), z.string().regex(TARGET_NAME)])
  .optional();
const flagsSchema = z.string().regex(FLAGS, 'flags may only use d, g, i, m, s, u, v, y').optional();
const maxSchema = z.number().int().positive().max(MAX_HELPER_ITEMS).optional();

const grepArgs = z.tuple([
  patternSchema,
  z
    .object({
      flags: flagsSchema,
      context: z.number().int().min(0).max(50).optional(),
      max: maxSchema,
      target: targetSchema,
    })
    .strict()
    .optional(),
]);
const findAllArgs = z.tuple([
  patternSchema,
  z.object({ flags: flagsSchema, max: maxSchema, target: targetSchema }).strict().optional(),
]);
const countArgs = z.tuple([
  patternSchema,
  z.object({ flags: flagsSchema, target: targetSchema }).strict().optional(),
]);
const linesArgs = z.tuple([
  z.number().int().positive(),
  z.number().int().positive().nullable().optional(),
  z.object({ target: targetSchema }).strict().optional(),
]);
const chunkArgs = z.tuple([
  z.number().int().positive(),
  z
    .object({
      overlap: z.number().int().nonnegative().optional(),
      max: maxSchema,
      target: targetSchema,
    })
    .strict()
    .optional(),
]);

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

/** The arguments of a helper call, checked by its schema. */
function checkedArguments(helper: string, args: JsonValue[]): HelperArguments {
  switch (helper) {
    case 'grep': {
      const [pattern, options] = parse(helper, grepArgs, args);
      return { helper, pattern, options };
    }
    case 'find_all': {
      const [pattern, options] = parse(helper, findAllArgs, args);
      return { helper, pattern, options };
    }
    case 'count': {
      const [pattern, options] = parse(helper, countArgs, args);
      return { helper, pattern, options };
    }
    case 'lines': {
      const [start, end, options] = parse(helper, linesArgs, args);
      return { helper, start, end, options };
    }
    case 'chunk': {
      const [size, options] = parse(helper, chunkArgs, args);
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
 * Checks a helper call's arguments and turns them into a scan.
 *
 * @throws RlmError `sandbox.invalid_value` (bad arguments), `sandbox.invalid_pattern`
 */
export function parseHelperCall(
  helper: string,
  args: JsonValue[],
  caps: HelperCaps,
): HelperRequest {
  return helperRequest(checkedArguments(helper, args), caps);
}
