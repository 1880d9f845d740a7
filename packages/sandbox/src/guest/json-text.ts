import {
  append,
  isArray,
  joinList,
  jsonStringify,
  list,
  numberIsFinite,
  objectKeys,
} from './primordials.js';

/**
 * The JSON text of a value the scaffold built itself (primitives, `list()` arrays, `record()`
 * objects). QuickJS's own `JSON.stringify` keeps its cycle stack in an ordinary array, so for any
 * object it writes to `Array.prototype`'s indices: a setter guest code put there would run. Here
 * only strings and numbers go through it, which never touches an array.
 */
export function jsonText(value: unknown): string {
  if (typeof value === 'string') return jsonStringify(value);
  if (typeof value === 'number') return numberIsFinite(value) ? jsonStringify(value) : 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value === null || typeof value !== 'object') return 'null';
  const parts = list<string>();
  if (isArray(value)) {
    for (let index = 0; index < value.length; index++) append(parts, jsonText(value[index]));
    return '[' + joinList(parts, ',') + ']';
  }
  const fields = value as Record<string, unknown>;
  const keys = objectKeys(fields);
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index] as string;
    const item = fields[key];
    if (item !== undefined) append(parts, jsonStringify(key) + ':' + jsonText(item));
  }
  return '{' + joinList(parts, ',') + '}';
}

/** The JSON text of a string (`""` written directly for the usual empty stream). */
export function stringJson(text: string): string {
  return text === '' ? '""' : jsonStringify(text);
}
