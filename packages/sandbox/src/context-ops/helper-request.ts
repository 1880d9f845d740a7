import type { JsonValue } from '@rlm/protocol';
import { RlmError } from '@rlm/protocol/core';
import type { ScanOperation } from './scan-messages.js';
import { MAX_HELPER_ITEMS } from './scan-operations.js';

/**
 * Turning a helper call into a scan, without zod: this module runs on the thread that owns the
 * engine, where loading zod costs 60–300 ms, so the first helper call of a sandbox would pay for
 * it. `quickHelperCall` accepts only arguments it can tell are valid with plain checks (a subset
 * of what the schemas in helper-arguments.ts accept, giving the same request); anything else goes
 * to those schemas, which also write every error message the guest sees.
 */

/** Most results a helper returns unless `max` says otherwise. */
export const DEFAULT_HELPER_MAX_ITEMS = 1_000;
/**
 * Most chunks `chunk` makes unless `max` says otherwise. Boundaries are small (about 70
 * characters each), and a list cut short would leave part of the context unread, so the cap is
 * higher than other helpers' and passing it is an error rather than a cut.
 */
export const DEFAULT_CHUNK_MAX_ITEMS = 10_000;

/** A helper call, checked: the payload it reads and the scan to run. */
export interface HelperRequest {
  payload: string;
  operation: ScanOperation;
}

/** Limits that shape helper results. */
export interface HelperCaps {
  maxChars: number;
  /** Most chunks `chunk` makes unless `max` says otherwise (default `DEFAULT_CHUNK_MAX_ITEMS`). */
  chunkMaxItems?: number;
}

/** A pattern as the guest sends it: a regex source string, or a RegExp converted by the scaffold. */
export type HelperPattern = string | { source: string; flags: string };
/** `target` picks the payload: `2`, `'context_2'` or `'context'` (the default, `context_0`). */
export type HelperTarget = number | string | undefined;

/** The arguments of each helper, once checked. */
export type HelperArguments =
  | {
      helper: 'grep';
      pattern: HelperPattern;
      options?: { flags?: string; context?: number; max?: number; target?: HelperTarget };
    }
  | {
      helper: 'find_all';
      pattern: HelperPattern;
      options?: { flags?: string; max?: number; target?: HelperTarget };
    }
  | { helper: 'count'; pattern: HelperPattern; options?: { flags?: string; target?: HelperTarget } }
  | { helper: 'lines'; start: number; end?: number | null; options?: { target?: HelperTarget } }
  | {
      helper: 'chunk';
      size: number;
      options?: { overlap?: number; max?: number; target?: HelperTarget };
    };

export const FLAGS = /^[dgimsuvy]*$/;
export const TARGET_NAME = /^context(_\d+)?$/;

/** The request for checked arguments (the one place both paths build it). */
export function helperRequest(args: HelperArguments, caps: HelperCaps): HelperRequest {
  const { maxChars } = caps;
  const payload = payloadName(args.options?.target);
  switch (args.helper) {
    case 'grep':
      return {
        payload,
        operation: {
          op: 'grep',
          ...checkedPattern(args.pattern, args.options?.flags),
          context: args.options?.context ?? 0,
          maxItems: args.options?.max ?? DEFAULT_HELPER_MAX_ITEMS,
          maxChars,
        },
      };
    case 'find_all':
      return {
        payload,
        operation: {
          op: 'find_all',
          ...checkedPattern(args.pattern, args.options?.flags),
          maxItems: args.options?.max ?? DEFAULT_HELPER_MAX_ITEMS,
          maxChars,
        },
      };
    case 'count':
      return {
        payload,
        operation: { op: 'count', ...checkedPattern(args.pattern, args.options?.flags) },
      };
    case 'lines':
      return {
        payload,
        operation: { op: 'lines', start: args.start, end: args.end ?? args.start, maxChars },
      };
    case 'chunk': {
      const overlap = args.options?.overlap ?? 0;
      if (overlap >= args.size) {
        throw new RlmError({
          code: 'sandbox.invalid_value',
          message: 'chunk: overlap must be smaller than the chunk size',
          details: { name: 'chunk', reason: 'overlap >= size' },
        });
      }
      return {
        payload,
        operation: {
          op: 'chunk',
          size: args.size,
          overlap,
          maxItems: args.options?.max ?? caps.chunkMaxItems ?? DEFAULT_CHUNK_MAX_ITEMS,
        },
      };
    }
  }
}

/**
 * The request for a helper call whose arguments are plainly valid, or `undefined` when they are
 * not plainly valid (or the helper is unknown): then helper-arguments.ts decides.
 *
 * @throws RlmError `sandbox.invalid_pattern`, `sandbox.invalid_value` (chunk overlap), exactly as
 *   `parseHelperCall` would for the same arguments
 */
export function quickHelperCall(
  helper: string,
  args: readonly JsonValue[],
  caps: HelperCaps,
): HelperRequest | undefined {
  const checked = plainArguments(helper, withoutTrailingNulls(args));
  return checked === undefined ? undefined : helperRequest(checked, caps);
}

/** Trailing nulls are arguments the guest left out (the scaffold sends undefined as null). */
export function withoutTrailingNulls(args: readonly JsonValue[]): JsonValue[] {
  const trimmed = [...args];
  while (trimmed.length > 0 && trimmed[trimmed.length - 1] === null) trimmed.pop();
  return trimmed;
}

type Check = (value: JsonValue) => boolean;

const isPattern: Check = (value) =>
  typeof value === 'string' ||
  (isRecord(value) &&
    Object.keys(value).length === 2 &&
    typeof value['source'] === 'string' &&
    typeof value['flags'] === 'string');
const isInteger =
  (min: number, max = Number.MAX_SAFE_INTEGER): Check =>
  (value) =>
    typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max;
const isFlags: Check = (value) => typeof value === 'string' && FLAGS.test(value);
const isTarget: Check = (value) =>
  isInteger(0)(value) || (typeof value === 'string' && TARGET_NAME.test(value));
const isMax = isInteger(1, MAX_HELPER_ITEMS);

/** Per helper: the checks of its leading arguments, how many it needs, its options' checks. */
const SHAPES: Record<
  string,
  { leading: Check[]; required: number; options: Record<string, Check> }
> = {
  grep: {
    leading: [isPattern],
    required: 1,
    options: { flags: isFlags, context: isInteger(0, 50), max: isMax, target: isTarget },
  },
  find_all: {
    leading: [isPattern],
    required: 1,
    options: { flags: isFlags, max: isMax, target: isTarget },
  },
  count: { leading: [isPattern], required: 1, options: { flags: isFlags, target: isTarget } },
  // lines(start, end?, options?): `end` may be null or left out.
  lines: {
    leading: [isInteger(1), (value) => value === null || isInteger(1)(value)],
    required: 1,
    options: { target: isTarget },
  },
  chunk: {
    leading: [isInteger(1)],
    required: 1,
    options: { overlap: isInteger(0), max: isMax, target: isTarget },
  },
};

function plainArguments(helper: string, args: JsonValue[]): HelperArguments | undefined {
  const shape = Object.hasOwn(SHAPES, helper) ? SHAPES[helper] : undefined;
  if (shape === undefined) return undefined;
  const { leading } = shape;
  if (args.length < shape.required || args.length > leading.length + 1) return undefined;
  if (!leading.every((check, index) => index >= args.length || check(args[index] ?? null))) {
    return undefined;
  }
  const options = args[leading.length];
  if (options !== undefined && !isPlainOptions(options, shape.options)) return undefined;
  return toArguments(helper, args, options as HelperArguments['options']);
}

function toArguments(
  helper: string,
  args: JsonValue[],
  options: HelperArguments['options'],
): HelperArguments {
  switch (helper) {
    case 'lines': {
      const end = args[1] as number | null | undefined;
      return { helper, start: args[0] as number, ...(end === undefined ? {} : { end }), options };
    }
    case 'chunk':
      return { helper, size: args[0] as number, options };
    default:
      return {
        helper: helper as 'grep' | 'find_all' | 'count',
        pattern: args[0] as HelperPattern,
        options,
      };
  }
}

function isPlainOptions(value: JsonValue, checks: Record<string, Check>): boolean {
  if (!isRecord(value)) return false;
  return Object.entries(value).every(([key, field]) => {
    const check = Object.hasOwn(checks, key) ? checks[key] : undefined;
    return check?.(field) === true;
  });
}

function isRecord(value: JsonValue): value is { [key: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function payloadName(target: HelperTarget): string {
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
  pattern: HelperPattern,
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
