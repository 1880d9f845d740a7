/** Deeper than any event: past it, the bound gives up (a cycle, or a value to measure exactly). */
const MAX_DEPTH = 32;

/** The most characters one code unit of a string takes in JSON (`\u001f`). */
const MAX_ESCAPE = 6;

/** The most characters a number takes in JSON (`-1.2345678901234567e-308`). */
const MAX_NUMBER = 24;

/**
 * True when `value` certainly takes at most `maxChars` characters as JSON, found without
 * serializing it: each string counts six characters per code unit (the longest escape), each
 * number 24. False means "not known": a value that may be longer, or one this bound does not
 * measure (a class instance, `toJSON`, a function, a bigint, nesting deeper than 32 levels).
 * Run events are small next to their cap, so almost every one is settled here, for a fraction of
 * what `JSON.stringify` costs.
 */
export function fitsAsJson(value: unknown, maxChars: number): boolean {
  return boundOf(value, maxChars, 0) <= maxChars;
}

/**
 * The upper bound `fitsAsJson` uses: at least the length of `value`'s JSON, or `Infinity` for a
 * value that may be longer than `budget` or that the bound does not measure.
 */
export function jsonBound(value: unknown, budget: number): number {
  return boundOf(value, budget, 0);
}

/** An upper bound of `value`'s JSON length, or `Infinity` once past `budget` or unmeasurable. */
function boundOf(value: unknown, budget: number, depth: number): number {
  switch (typeof value) {
    case 'string':
      return 2 + MAX_ESCAPE * value.length;
    case 'number':
      return MAX_NUMBER;
    case 'boolean':
      return 5;
    case 'undefined':
      // `null` in an array; a property holding it is left out (counted all the same).
      return 4;
    case 'object':
      if (value === null) return 4;
      if (depth >= MAX_DEPTH) return Number.POSITIVE_INFINITY;
      return Array.isArray(value)
        ? arrayBound(value, budget, depth)
        : objectBound(value, budget, depth);
    default:
      return Number.POSITIVE_INFINITY;
  }
}

function arrayBound(items: readonly unknown[], budget: number, depth: number): number {
  let total = 2 + items.length;
  for (const item of items) {
    total += boundOf(item, budget, depth + 1);
    if (total > budget) return Number.POSITIVE_INFINITY;
  }
  return total;
}

function objectBound(value: object, budget: number, depth: number): number {
  const prototype = Object.getPrototypeOf(value);
  // A class instance or a `toJSON` serializes as its own code says: not measured here.
  if ((prototype !== Object.prototype && prototype !== null) || 'toJSON' in value) {
    return Number.POSITIVE_INFINITY;
  }
  let total = 2;
  // Inherited enumerable keys (a polluted `Object.prototype`), which JSON leaves out, are counted
  // too: the bound only grows, and no own-key test is paid per key.
  for (const key in value) {
    // `"key":value,` — the key quoted and escaped, a colon, a comma.
    total += 4 + MAX_ESCAPE * key.length;
    total += boundOf((value as Record<string, unknown>)[key], budget, depth + 1);
    if (total > budget) return Number.POSITIVE_INFINITY;
  }
  return total;
}
