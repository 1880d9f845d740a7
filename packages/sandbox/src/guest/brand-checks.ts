import {
  append,
  call,
  dateGetTime,
  getOwnPropertyDescriptor,
  isAccessor,
  isArray,
  joinList,
  list,
  type Method,
  mapSize,
  RegExpPrototype,
  regexpFlagGetters,
  regexpSource,
  setSize,
} from './primordials.js';

/**
 * Whether a built-in getter accepts `value` as its receiver: a brand check that reads an internal
 * slot, so it runs no guest code (a Proxy or a look-alike object simply fails it).
 */
export function hasBrand(getter: Method, value: unknown): boolean {
  try {
    call(getter, value, []);
    return true;
  } catch {
    return false;
  }
}

export type Brand = 'array' | 'map' | 'set' | 'date' | 'regexp' | 'other';

/** The built-in kind of an object, by brand checks only. */
export function brandOf(value: object): Brand {
  try {
    if (isArray(value)) return 'array';
  } catch {
    // A revoked Proxy throws from Array.isArray.
    return 'other';
  }
  if (hasBrand(mapSize, value)) return 'map';
  if (hasBrand(setSize, value)) return 'set';
  if (hasBrand(dateGetTime, value)) return 'date';
  if (value !== RegExpPrototype && hasBrand(regexpSource, value)) return 'regexp';
  return 'other';
}

/** `/source/flags` of a RegExp, read through the captured getters. */
export function regexpText(pattern: object): string {
  return '/' + call<string>(regexpSource, pattern, []) + '/' + regexpFlags(pattern);
}

/** The flags of a RegExp, read through the captured getters. */
export function regexpFlags(pattern: object): string {
  const flags = list<string>();
  for (let index = 0; index < regexpFlagGetters.length; index++) {
    const entry = regexpFlagGetters[index];
    if (entry !== undefined && call<boolean>(entry[1], pattern, [])) append(flags, entry[0]);
  }
  return joinList(flags, '');
}

/** The value of an own data property, or `undefined` (an accessor is never called). */
export function ownData(target: object, key: PropertyKey): unknown {
  const descriptor = getOwnPropertyDescriptor(target, key);
  if (descriptor === undefined || isAccessor(descriptor)) return undefined;
  return descriptor.value;
}
