import { describeIssues, type JsonValue, RlmError } from '@rlm/protocol';
import { z } from 'zod';
import { pythonPatternToJs } from './python-pattern.js';
import type { ScanOperation } from './scan-messages.js';

/** Most results a helper returns unless `max` says otherwise. */
export const DEFAULT_HELPER_MAX_ITEMS = 1_000;
const MAX_ITEMS_CEILING = 100_000;

/** The scaffold sends a pattern as its Python source and flag letters (from `re` flags). */
const patternSchema = z
  .object({ source: z.string(), flags: z.string().regex(/^[aiLmsux]*$/, 'unknown flag letter') })
  .strict();
/** `target` picks the payload: `2`, `'context_2'` or `'context'` (the default, `context_0`). */
const targetSchema = z
  .union([z.number().int().nonnegative(), z.string().regex(/^context(_\d+)?$/)])
  .optional();
const maxSchema = z.number().int().positive().max(MAX_ITEMS_CEILING).optional();

const grepArgs = z.tuple([
  patternSchema,
  z
    .object({
      context: z.number().int().min(0).max(50).optional(),
      max: maxSchema,
      target: targetSchema,
    })
    .strict()
    .optional(),
]);
const findAllArgs = z.tuple([
  patternSchema,
  z.object({ max: maxSchema, target: targetSchema }).strict().optional(),
]);
const countArgs = z.tuple([patternSchema, z.object({ target: targetSchema }).strict().optional()]);
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

/** A checked helper call: the payload it reads and the scan to run. */
export interface HelperRequest {
  payload: string;
  operation: ScanOperation;
}

function payloadName(target: number | string | undefined): string {
  if (target === undefined || target === 'context') return 'context_0';
  return typeof target === 'number' ? `context_${target}` : target;
}

/**
 * Translates the Python pattern and compiles it once here, so a bad one fails with V8's own
 * message before any scan starts.
 *
 * @throws RlmError `sandbox.invalid_pattern`
 */
function checkedPattern(pattern: z.infer<typeof patternSchema>): { source: string; flags: string } {
  const translated = pythonPatternToJs(pattern.source, pattern.flags);
  try {
    new RegExp(translated.source, translated.flags);
  } catch (error) {
    throw new RlmError({
      code: 'sandbox.invalid_pattern',
      message: error instanceof Error ? error.message : String(error),
      details: { pattern: pattern.source },
    });
  }
  return translated;
}

function parse<T extends z.ZodType>(helper: string, schema: T, args: JsonValue[]): z.output<T> {
  const result = schema.safeParse(args);
  if (result.success) return result.data;
  const issues = describeIssues(result.error).join('; ');
  throw new RlmError({
    code: 'sandbox.invalid_value',
    message: `${helper}: invalid arguments (${issues})`,
    details: { name: helper, reason: issues },
  });
}

/**
 * Checks a helper call's arguments (as the scaffold sends them) and turns them into a scan.
 *
 * @throws RlmError `sandbox.invalid_value` (bad arguments), `sandbox.invalid_pattern`
 */
export function parseHelperCall(
  helper: string,
  args: JsonValue[],
  maxChars: number,
): HelperRequest {
  switch (helper) {
    case 'grep': {
      const [pattern, options] = parse(helper, grepArgs, args);
      return {
        payload: payloadName(options?.target),
        operation: {
          op: 'grep',
          ...checkedPattern(pattern),
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
          ...checkedPattern(pattern),
          maxItems: options?.max ?? DEFAULT_HELPER_MAX_ITEMS,
          maxChars,
        },
      };
    }
    case 'count': {
      const [pattern, options] = parse(helper, countArgs, args);
      return {
        payload: payloadName(options?.target),
        operation: { op: 'count', ...checkedPattern(pattern) },
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
          maxItems: options?.max ?? DEFAULT_HELPER_MAX_ITEMS,
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
