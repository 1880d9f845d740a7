import { brandOf } from './brand-checks.js';
import { call, functionToString, matches } from './primordials.js';

const CLASS_SOURCE = /^class[\s{]/;

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
  try {
    return matches(CLASS_SOURCE, call(functionToString, fn, []));
  } catch {
    return false;
  }
}
