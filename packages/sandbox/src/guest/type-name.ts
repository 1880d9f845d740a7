import { brandOf } from './brand-checks.js';
import {
  call,
  functionToString,
  getOwnPropertyDescriptor,
  indexOf,
  isAccessor,
  matches,
  newWeakMap,
  weakMapLookup,
  weakMapSet,
} from './primordials.js';
import { isProxy } from './proxy-tracking.js';

const CLASS_SOURCE = /^class[\s{]/;

/**
 * `isClass` of the functions whose source QuickJS gave, or whose `name` was not an own data
 * property: that answer is fixed when the function is made, and a function variable's type is
 * named every block (reading its whole source each time). A text with `[native code]` is not
 * kept: it is built from `name`, which the guest may redefine. Weak: it keeps no function alive.
 */
const sourceKinds = newWeakMap<object, boolean>();

/**
 * The type shown for a variable: `string`, `number`, `array`, `map`, `set`, `date`, `regexp`,
 * `object`, `function`, `class`, …. Runs no guest code: brand checks read internal slots, and
 * telling a class from a function reads the function's source only when QuickJS can build it
 * without asking the function anything (see `isClass`).
 */
export function typeName(value: unknown): string {
  if (typeof value === 'function') return isClass(value) ? 'class' : 'function';
  return basicTypeName(value);
}

/**
 * `typeName` of a value already named once: a function is a `class` when naming its type in a
 * block found it to be one (`isClass` keeps that answer), else `function`.
 */
export function settledTypeName(value: unknown): string {
  if (typeof value === 'function') {
    return weakMapLookup(sourceKinds, value) === true ? 'class' : 'function';
  }
  return basicTypeName(value);
}

/** `typeName` without telling classes from functions. */
export function basicTypeName(value: unknown): string {
  if (value === null) return 'null';
  const type = typeof value;
  if (type !== 'object') return type;
  const brand = brandOf(value as object);
  return brand === 'other' ? 'object' : brand;
}

/**
 * Whether a function is a class. Its source tells, but for a function without source text (a
 * bound one) QuickJS builds the text from `name`, read as any property is: a getter or a Proxy's
 * `get` trap would run. So a Proxy is never asked (it is a `function`: its text is built from
 * `name`, never a class source), and the source is read only when `name` is an own data
 * property. Otherwise a class is told by its `prototype`, which a class defines read-only and a
 * plain function writable (a bound or arrow function has none).
 */
export function isClass(fn: object): boolean {
  const known = weakMapLookup(sourceKinds, fn);
  if (known !== undefined) return known;
  if (isProxy(fn)) return false;
  const name = getOwnPropertyDescriptor(fn, 'name');
  if (name === undefined || isAccessor(name)) {
    const kind = hasReadOnlyPrototype(fn);
    call(weakMapSet, sourceKinds, [fn, kind]);
    return kind;
  }
  let source: string;
  try {
    source = call(functionToString, fn, []);
  } catch {
    return false;
  }
  const kind = matches(CLASS_SOURCE, source);
  // A text built from `name` may change with it; a source text is fixed.
  if (indexOf(source, '[native code]', 0) === -1) call(weakMapSet, sourceKinds, [fn, kind]);
  return kind;
}

function hasReadOnlyPrototype(fn: object): boolean {
  const prototype = getOwnPropertyDescriptor(fn, 'prototype');
  return prototype !== undefined && !isAccessor(prototype) && prototype.writable === false;
}
