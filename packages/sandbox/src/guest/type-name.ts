import { brandOf } from './brand-checks.js';
import {
  call,
  functionToString,
  indexOf,
  matches,
  newWeakMap,
  weakMapLookup,
  weakMapSet,
} from './primordials.js';

const CLASS_SOURCE = /^class[\s{]/;

/**
 * `isClass` of the functions whose source QuickJS gave: that text is fixed when the function is
 * made, so the answer is too, and a function variable's type is named every block (reading its
 * whole source each time). A text with `[native code]` is not kept: for a bound function or a
 * Proxy QuickJS builds it from `name`, which may be a getter (so it is read again each time, as
 * before). Weak: it keeps no function alive.
 */
const sourceKinds = newWeakMap<object, boolean>();

/**
 * The type shown for a variable: `string`, `number`, `array`, `map`, `set`, `date`, `regexp`,
 * `object`, `function`, `class`, …. Brand checks run no guest code; telling a class from a
 * function reads the function's source, and for a bound function or a Proxy QuickJS then reads
 * its `name`, which can run a getter or trap. The host therefore asks for these names under the
 * block's budget, and falls back to `basicTypeName` when that budget is gone.
 */
export function typeName(value: unknown): string {
  if (typeof value === 'function') return isClass(value) ? 'class' : 'function';
  return basicTypeName(value);
}

/**
 * `typeName` without running guest code: a function is a `class` when naming its type in a block
 * already found its source to be one (`isClass` keeps that answer), else `function` (a bound
 * function or a Proxy, whose source text QuickJS builds from a `name` that may be a getter, is
 * never a class source).
 */
export function settledTypeName(value: unknown): string {
  if (typeof value === 'function') {
    return weakMapLookup(sourceKinds, value) === true ? 'class' : 'function';
  }
  return basicTypeName(value);
}

/** `typeName` without telling classes from functions: runs no guest code at all. */
export function basicTypeName(value: unknown): string {
  if (value === null) return 'null';
  const type = typeof value;
  if (type !== 'object') return type;
  const brand = brandOf(value as object);
  return brand === 'other' ? 'object' : brand;
}

/** Whether a function's source is a class (see `typeName` about bound functions and Proxies). */
export function isClass(fn: object): boolean {
  const known = weakMapLookup(sourceKinds, fn);
  if (known !== undefined) return known;
  let source: string;
  try {
    source = call(functionToString, fn, []);
  } catch {
    return false;
  }
  const kind = matches(CLASS_SOURCE, source);
  if (indexOf(source, '[native code]', 0) === -1) call(weakMapSet, sourceKinds, [fn, kind]);
  return kind;
}
