import { type Brand, brandOf, regexpText } from './brand-checks.js';
import { functionText } from './inspect-value.js';
import { jsonText } from './json-text.js';
import {
  append,
  call,
  dateToIsoString,
  defineEnumerable,
  errorToString,
  getOwnPropertyDescriptor,
  getPrototypeOf,
  isAccessor,
  list,
  mapEntries,
  mapIteratorNext,
  newSet,
  numberIsNaN,
  objectKeys,
  objectToString,
  record,
  StringCtor,
  setAdd,
  setDelete,
  setHas,
  setIteratorNext,
  setValues,
  symbolToString,
  toStringTagSymbol,
} from './primordials.js';
import { isProxy } from './proxy-tracking.js';

/**
 * JSON-safe copies of guest values (for `getVariable`, variable sizes and non-string answers):
 * cycles become `'[Circular]'`, functions `'[Function: f]'`, Maps lists of pairs, Sets lists,
 * Dates ISO strings, `undefined`/`NaN` null. Getters are never called. The copy is built from
 * prototype-less arrays and records, so serializing it can reach no guest `toJSON`.
 *
 * Walking a Proxy runs its traps: callers run this inside a block or under the budget the host
 * gives its own reads.
 */

const MAX_COPY_NODES = 1_000_000;
const PROXY_TEXT = '[Proxy]';
// Deeper values are cut: the copy and its serializer recurse, and an inline sandbox has a small stack.
const MAX_COPY_DEPTH = 100;

/** The copy did not fit in the characters allowed. */
export interface TooLarge {
  tooLarge: true;
  /** Characters counted when the copy stopped (a lower bound of the JSON's length). */
  size: number;
}

interface Budget {
  nodes: number;
  /** Approximate JSON characters so far (escapes not counted). */
  chars: number;
  maxChars: number;
  path: Set<unknown>;
  /** Copy a Proxy as the text `[Proxy]` instead of walking it (which runs its traps). */
  opaqueProxies: boolean;
}

/** Thrown (and caught by `toJsonText`) once the copy passes its character budget. */
const OVERFLOW = record<object>();

function count(budget: Budget, chars: number): void {
  budget.chars += chars;
  if (budget.chars > budget.maxChars) throw OVERFLOW;
}

function copyPrimitive(value: unknown, budget: Budget): unknown {
  switch (typeof value) {
    case 'string':
      count(budget, value.length + 2);
      return value;
    case 'number':
      count(budget, 8);
      return numberIsNaN(value) || value === Infinity || value === -Infinity ? null : value;
    case 'boolean':
      count(budget, 5);
      return value;
    case 'bigint':
      return copyPrimitive(StringCtor(value), budget);
    case 'symbol':
      return copyPrimitive(call<string>(symbolToString, value, []), budget);
    case 'function':
      if (budget.opaqueProxies && isProxy(value)) return copyPrimitive(PROXY_TEXT, budget);
      return copyPrimitive(functionText(value), budget);
    default:
      count(budget, 4);
      return null;
  }
}

function copyArray(value: unknown[], budget: Budget, depth: number): unknown[] {
  const out = list<unknown>();
  const length: unknown = value.length;
  const total = typeof length === 'number' ? length : 0;
  for (let index = 0; index < total; index++) {
    budget.nodes++;
    if (budget.nodes > MAX_COPY_NODES) {
      append(out, copyPrimitive('[truncated: value too large]', budget));
      break;
    }
    const descriptor = getOwnPropertyDescriptor(value, StringCtor(index));
    count(budget, 1);
    append(
      out,
      descriptor !== undefined && !isAccessor(descriptor)
        ? copy(descriptor.value, budget, depth + 1)
        : null,
    );
  }
  return out;
}

function copyEntries(
  value: object,
  at: { budget: Budget; depth: number },
  kind: 'map' | 'set',
): unknown[] {
  const budget = at.budget;
  const depth = at.depth;
  const out = list<unknown>();
  const iterator = call<object>(kind === 'map' ? mapEntries : setValues, value, []);
  const next = kind === 'map' ? mapIteratorNext : setIteratorNext;
  for (;;) {
    const step = call<{ done: boolean; value: unknown }>(next, iterator, []);
    if (step.done) break;
    if (kind === 'set') {
      append(out, copy(step.value, budget, depth + 1));
      continue;
    }
    const entry = step.value as [unknown, unknown];
    const pair = list<unknown>();
    append(pair, copy(entry[0], budget, depth + 1));
    append(pair, copy(entry[1], budget, depth + 1));
    append(out, pair);
  }
  return out;
}

function copyObject(value: object, budget: Budget, depth: number): Record<string, unknown> {
  const out = record<Record<string, unknown>>();
  const keys = objectKeys(value);
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index] as string;
    const descriptor = getOwnPropertyDescriptor(value, key);
    if (descriptor === undefined || isAccessor(descriptor)) continue;
    const item: unknown = descriptor.value;
    if (item === undefined || typeof item === 'function') continue;
    count(budget, key.length + 4);
    defineEnumerable(out, key, copy(item, budget, depth + 1));
  }
  return out;
}

function copy(value: unknown, budget: Budget, depth: number): unknown {
  budget.nodes++;
  if (budget.nodes > MAX_COPY_NODES) return copyPrimitive('[truncated: value too large]', budget);
  if (value === null || typeof value !== 'object') return copyPrimitive(value, budget);
  if (call<boolean>(setHas, budget.path, [value])) return copyPrimitive('[Circular]', budget);
  if (depth > MAX_COPY_DEPTH) return copyPrimitive('[truncated: nested too deeply]', budget);
  if (budget.opaqueProxies && isProxy(value)) return copyPrimitive(PROXY_TEXT, budget);
  const brand = brandOf(value);
  const text = textOf(value, brand);
  if (text !== undefined) return copyPrimitive(text, budget);
  call(setAdd, budget.path, [value]);
  try {
    count(budget, 2);
    if (brand === 'array') return copyArray(value as unknown[], budget, depth);
    if (brand === 'map' || brand === 'set') return copyEntries(value, { budget, depth }, brand);
    return copyObject(value, budget, depth);
  } finally {
    call(setDelete, budget.path, [value]);
  }
}

/** Dates, RegExps and errors copy as text (`null` for an invalid date); others as structure. */
function textOf(value: object, brand: Brand): string | null | undefined {
  if (brand === 'date') {
    try {
      return call<string>(dateToIsoString, value, []);
    } catch {
      return null;
    }
  }
  if (brand === 'regexp') return regexpText(value);
  if (tagIsAccessor(value) || call<string>(objectToString, value, []) !== '[object Error]') {
    return undefined;
  }
  try {
    const text: unknown = call(errorToString, value, []);
    return typeof text === 'string' ? text : 'Error';
  } catch {
    return 'Error';
  }
}

/**
 * Whether `Symbol.toStringTag` is an accessor on the value or its prototypes: then
 * `Object.prototype.toString` would call its getter (guest code), so the value is copied as
 * structure rather than asked whether it is an error. Reads descriptors only, and stops at a
 * Proxy, whose traps the read would run: the value is then copied as structure too.
 */
function tagIsAccessor(value: object): boolean {
  for (let at: object | null = value; at !== null; at = getPrototypeOf(at) as object | null) {
    if (isProxy(at)) return true;
    const descriptor = getOwnPropertyDescriptor(at, toStringTagSymbol);
    if (descriptor !== undefined) return isAccessor(descriptor);
  }
  return false;
}

/**
 * The JSON text of a JSON-safe copy of `value`, or `TooLarge` once the copy passes about
 * `maxChars` characters (counted as it is built, so a huge value is never copied whole).
 * `opaqueProxies`: a Proxy copies as `'[Proxy]'`, so the copy runs no guest code at all.
 */
export function toJsonText(
  value: unknown,
  maxChars: number,
  opaqueProxies = false,
): string | TooLarge {
  const budget: Budget = { nodes: 0, chars: 0, maxChars, path: newSet<unknown>(), opaqueProxies };
  let copied: unknown;
  try {
    copied = copy(value, budget, 0);
  } catch (error) {
    if (error !== OVERFLOW) throw error;
    return tooLarge(budget.chars);
  }
  const text: string = jsonText(copied);
  return text.length > maxChars ? tooLarge(text.length) : text;
}

function tooLarge(size: number): TooLarge {
  const result = record<TooLarge>();
  result.tooLarge = true;
  result.size = size;
  return result;
}
