import type { JsonValue, TrajectoryRecord } from '@rlm/protocol';

type JsonObject = { [key: string]: JsonValue };

/** A path of object keys from a record's root. */
export type KeyPath = string[];

function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function sameJson(left: JsonValue, right: JsonValue): boolean {
  if (left === right) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) {
    return false;
  }
  if (Array.isArray(left) || Array.isArray(right)) {
    if (!Array.isArray(left) || !Array.isArray(right) || left.length !== right.length) return false;
    return left.every((item, at) => sameJson(item, right[at] as JsonValue));
  }
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  return keys.every(
    (key) => Object.hasOwn(right, key) && sameJson(left[key] as JsonValue, right[key] as JsonValue),
  );
}

/**
 * What a record has in common with the previous one of its kind: records of one kind (a
 * sub-call's events, model exchanges) repeat their run ids, models and usage shapes, so a line
 * keeps only what changed. The key a record is a change of.
 */
export function deltaKey(record: TrajectoryRecord): string {
  return record.kind === 'event' ? `event:${record.event.type}` : record.kind;
}

/** `next - base` when both are integers a reader adds back exactly (format 4's `add`). */
function integerStep(base: JsonValue | undefined, next: JsonValue): number | undefined {
  if (typeof base !== 'number' || typeof next !== 'number') return undefined;
  const step = next - base;
  return Number.isSafeInteger(base) && Number.isSafeInteger(next) && Number.isSafeInteger(step)
    ? step
    : undefined;
}

/**
 * The change from `base` to `next`: `set` holds what differs (objects compared key by key,
 * anything else replaced whole), `unset` the keys `next` no longer has. With `integers`, an
 * integer that changed is in `add` (at the same path) as its difference from `base`'s instead:
 * timestamps and counts move by small steps, which compress where their values do not.
 */
export function recordDelta(
  base: JsonObject,
  next: JsonObject,
  { integers = false }: { integers?: boolean } = {},
): { set: JsonObject; unset: KeyPath[]; add: JsonObject } {
  const unset: KeyPath[] = [];
  const add: JsonObject = {};
  const set = changes(base, next, { path: [], unset, add: integers ? add : undefined });
  return { set, unset, add };
}

/** Puts `value` at `path` in `into`, making the objects on the way. */
function putAt(into: JsonObject, path: KeyPath, value: JsonValue): void {
  let holder = into;
  for (const key of path.slice(0, -1)) {
    const inner = holder[key];
    if (isObject(inner)) holder = inner;
    else {
      const made: JsonObject = {};
      holder[key] = made;
      holder = made;
    }
  }
  holder[path.at(-1) as string] = value;
}

interface DeltaWalk {
  path: KeyPath;
  unset: KeyPath[];
  /** Where changed integers go as steps; undefined: they are set like any value. */
  add: JsonObject | undefined;
}

/** What differs from `from` to `to` (objects key by key), noting removed keys in `unset`. */
function changes(from: JsonObject, to: JsonObject, walk: DeltaWalk): JsonObject {
  for (const key of Object.keys(from)) {
    if (!Object.hasOwn(to, key)) walk.unset.push([...walk.path, key]);
  }
  const into: JsonObject = {};
  for (const [key, value] of Object.entries(to)) {
    const before = Object.hasOwn(from, key) ? from[key] : undefined;
    if (isObject(before) && isObject(value)) {
      const inner = changes(before, value, { ...walk, path: [...walk.path, key] });
      if (Object.keys(inner).length > 0) into[key] = inner;
    } else if (before === undefined || !sameJson(before, value)) {
      changed(into, key, { before, value, walk });
    }
  }
  return into;
}

/** Notes a value that changed: as a step in `walk.add` when it can be one, in `into` otherwise. */
function changed(
  into: JsonObject,
  key: string,
  { before, value, walk }: { before: JsonValue | undefined; value: JsonValue; walk: DeltaWalk },
): void {
  const step = walk.add === undefined ? undefined : integerStep(before, value);
  if (step === undefined || walk.add === undefined) into[key] = value;
  else putAt(walk.add, [...walk.path, key], step);
}

/** `base` changed by `set` and `unset` (the inverse of `recordDelta`), as a new object. */
export function applyDelta(base: unknown, set: unknown, unset: readonly KeyPath[]): unknown {
  const merge = (from: unknown, change: unknown): unknown => {
    if (!isObject(from) || !isObject(change)) return change;
    const result: Record<string, unknown> = { ...from };
    for (const [key, value] of Object.entries(change)) {
      result[key] = Object.hasOwn(result, key) ? merge(result[key], value) : value;
    }
    return result;
  };
  const result = merge(structuredClone(base), set);
  for (const path of unset) {
    let holder: unknown = result;
    for (const key of path.slice(0, -1)) {
      holder = isObject(holder) && Object.hasOwn(holder, key) ? holder[key] : undefined;
    }
    const last = path.at(-1);
    if (isObject(holder) && last !== undefined) delete holder[last];
  }
  return result;
}

/**
 * Adds the integers of `add` (a `recordDelta`'s) to `record`'s at the same paths, in place; the
 * first path where `record` holds no integer to add to, or the sum is not exact, when there is
 * one (then `record` is not to be used).
 */
export function addIntegers(
  record: unknown,
  add: unknown,
  path: KeyPath = [],
): KeyPath | undefined {
  if (!isObject(add) || !isObject(record)) return path;
  for (const [key, step] of Object.entries(add)) {
    const at = [...path, key];
    const value = Object.hasOwn(record, key) ? record[key] : undefined;
    if (isObject(step)) {
      const problem = addIntegers(value, step, at);
      if (problem !== undefined) return problem;
      continue;
    }
    const sum = exactSum(value, step);
    if (sum === undefined) return at;
    record[key] = sum;
  }
  return undefined;
}

/** `value + step` when both are integers and so is the sum, exactly. */
function exactSum(value: unknown, step: unknown): number | undefined {
  if (typeof value !== 'number' || typeof step !== 'number') return undefined;
  const sum = value + step;
  return Number.isSafeInteger(value) && Number.isSafeInteger(step) && Number.isSafeInteger(sum)
    ? sum
    : undefined;
}

/**
 * Where a record keeps its call id, when it has one: events and exchanges name model and
 * sub-calls `<runId>:<n>`, so a line can keep `n` alone.
 */
function callHolder(record: JsonObject): JsonObject | undefined {
  const holder = record['kind'] === 'event' ? record['event'] : record;
  return isObject(holder) && typeof holder['runId'] === 'string' ? holder : undefined;
}

/**
 * The record without its call id when that id is `<runId>:<n>` (the executor's), and `n`; the
 * record as it is otherwise. Deltas are taken between records in this form.
 */
export function withoutCallId(record: JsonObject): { record: JsonObject; call?: number } {
  const holder = callHolder(record);
  const callId = holder?.['callId'];
  if (holder === undefined || typeof callId !== 'string') return { record };
  const prefix = `${String(holder['runId'])}:`;
  const suffix = callId.startsWith(prefix) ? callId.slice(prefix.length) : '';
  if (!/^(0|[1-9]\d{0,14})$/.test(suffix)) return { record };
  // A shallow copy: the records are not changed after, so their other parts can be shared.
  const { callId: _dropped, ...rest } = holder;
  const copy = record['kind'] === 'event' ? { ...record, event: rest } : rest;
  return { record: copy, call: Number(suffix) };
}

/** The inverse of `withoutCallId`. */
export function withCallId(record: unknown, call: number | undefined): unknown {
  if (call === undefined || !isObject(record)) return record;
  const holder = callHolder(record as JsonObject);
  if (holder === undefined) return record;
  const withId = { ...holder, callId: `${String(holder['runId'])}:${call}` };
  return record['kind'] === 'event' ? { ...record, event: withId } : withId;
}
