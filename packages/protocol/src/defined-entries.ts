/**
 * The object without its `undefined` entries: how a door writes optional settings under
 * `exactOptionalPropertyTypes`, where a key set to `undefined` is not an absent key.
 */
export function definedEntries<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as T;
}
