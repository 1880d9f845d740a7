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
  newWeakMap,
  RegExpPrototype,
  regexpFlagGetters,
  regexpSource,
  setSize,
  weakMapLookup,
  weakMapSet,
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

type SlotBrand = Exclude<Brand, 'array'>;

/**
 * What the checks that throw found for each object they were asked about. A check fails by
 * throwing, and QuickJS builds an error with its stack for every failure: four of them for a
 * plain object, ~30 µs each time its type is named (every block, for each variable that holds
 * one). What they read is fixed when the object is made (a Proxy has none of these slots, its
 * target's or not), so the first answer stays true; `Array.isArray`, which does follow a Proxy
 * and throws once it is revoked, is asked every time. Weak: it keeps no object alive.
 */
const slotBrands = newWeakMap<object, SlotBrand>();

/** The built-in kind of an object, by brand checks only. */
export function brandOf(value: object): Brand {
  try {
    if (isArray(value)) return 'array';
  } catch {
    // A revoked Proxy throws from Array.isArray.
    return 'other';
  }
  const known = weakMapLookup(slotBrands, value);
  if (known !== undefined) return known;
  const brand = slotBrand(value);
  call(weakMapSet, slotBrands, [value, brand]);
  return brand;
}

function slotBrand(value: object): SlotBrand {
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
