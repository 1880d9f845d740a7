import { describeIssues, type JsonValue, RlmError } from '@rlm/protocol';
import { z } from 'zod';
import type { ScanOperation } from './scan-messages.js';
import { MAX_HELPER_ITEMS } from './scan-operations.js';

/** Most results a helper returns unless `max` says otherwise. */
export const DEFAULT_HELPER_MAX_ITEMS = 1_000;
/**
 * Most chunks `chunk` makes unless `max` says otherwise. Boundaries are small (about 70
 * characters each), and a list cut short would leave part of the context unread, so the cap is
 * higher than other helpers' and passing it is an error rather than a cut.
 */
export const DEFAULT_CHUNK_MAX_ITEMS = 10_000;

/** A pattern as the guest sends it: a regex source string, or a RegExp converted by the scaffold. */
const patternSchema = z.union([
  z.string(),
  z.object({ source: z.string(), flags: z.string() }).strict(),
]);
/** `target` picks the payload: `2`, `'context_2'` or `'context'` (the default, `context_0`). */
const targetSchema = z
  .union([z.number().int().nonnegative(), z.string().regex(/^context(_\d+)?$/)])
  .optional();
const flagsSchema = z
  .string()
  .regex(/^[dgimsuvy]*$/, 'flags may only use d, g, i, m, s, u, v, y')
  .optional();
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

/** A helper call, checked: the payload it reads and the scan to run. */
export interface HelperRequest {
  payload: string;
  operation: ScanOperation;
}

/** Limits that shape helper results. */
export interface HelperCaps {
  maxChars: number;
}

function payloadName(target: number | string | undefined): string {
  if (target === undefined || target === 'context') return 'context_0';
  return typeof target === 'number' ? `context_${target}` : target;
}

/**
 * Compiles the pattern once here, so an invalid one fails with exactly the message V8 gives
 * (`Invalid regular expression: /(/: Unterminated group`).
 *
 * @throws RlmError `sandbox.invalid_pattern`
 */
function checkedPattern(
  pattern: z.infer<typeof patternSchema>,
  flags: string | undefined,
): { source: string; flags: string } {
  const source = typeof pattern === 'string' ? pattern : pattern.source;
  const merged = [
    ...new Set([...(typeof pattern === 'string' ? '' : pattern.flags), ...(flags ?? '')]),
  ].join('');
  try {
    new RegExp(source, merged);
  } catch (error) {
    throw new RlmError({
      code: 'sandbox.invalid_pattern',
      message: error instanceof Error ? error.message : String(error),
      details: { pattern: source },
    });
  }
  return { source, flags: merged };
}

function parse<T extends z.ZodType>(helper: string, schema: T, args: JsonValue[]): z.output<T> {
  // Trailing nulls are arguments the guest left out (the scaffold sends undefined as null).
  const trimmed = [...args];
  while (trimmed.length > 0 && trimmed[trimmed.length - 1] === null) trimmed.pop();
  const result = schema.safeParse(trimmed);
  if (result.success) return result.data;
  const issues = describeIssues(result.error).join('; ');
  throw new RlmError({
    code: 'sandbox.invalid_value',
    message: `${helper}: invalid arguments (${issues})`,
    details: { name: helper, reason: issues },
  });
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
  const maxChars = caps.maxChars;
  switch (helper) {
    case 'grep': {
      const [pattern, options] = parse(helper, grepArgs, args);
      return {
        payload: payloadName(options?.target),
        operation: {
          op: 'grep',
          ...checkedPattern(pattern, options?.flags),
          context: options?.context ?? 0,
          maxItems: options?.max ?? DEFAULT_HELPER_MAX_ITEMS,
          maxChars,
        },
      };
    }
    case 'find_all': {
      const [pattern, options] = parse(helper, findAllArgs, args);
      return {
        payload: payloadName(options?.target),
        operation: {
          op: 'find_all',
          ...checkedPattern(pattern, options?.flags),
          maxItems: options?.max ?? DEFAULT_HELPER_MAX_ITEMS,
          maxChars,
        },
      };
    }
    case 'count': {
      const [pattern, options] = parse(helper, countArgs, args);
      return {
        payload: payloadName(options?.target),
        operation: { op: 'count', ...checkedPattern(pattern, options?.flags) },
      };
    }
    case 'lines': {
      const [start, end, options] = parse(helper, linesArgs, args);
      return {
        payload: payloadName(options?.target),
        operation: { op: 'lines', start, end: end ?? start, maxChars },
      };
    }
    case 'chunk': {
      const [size, options] = parse(helper, chunkArgs, args);
      const overlap = options?.overlap ?? 0;
      if (overlap >= size) {
        throw new RlmError({
          code: 'sandbox.invalid_value',
          message: 'chunk: overlap must be smaller than the chunk size',
          details: { name: helper, reason: 'overlap >= size' },
        });
      }
      return {
        payload: payloadName(options?.target),
        operation: {
          op: 'chunk',
          size,
          overlap,
          maxItems: options?.max ?? DEFAULT_CHUNK_MAX_ITEMS,
        },
      };
    }
    default:
      throw new RlmError({
        code: 'sandbox.invalid_value',
        message: `no context helper named ${helper}`,
        details: { name: helper, reason: 'unknown helper' },
      });
  }
}
