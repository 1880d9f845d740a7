import { ownData } from './brand-checks.js';
import { toJsonText } from './json-copy.js';
import { jsonText } from './json-text.js';
import {
  append,
  defineHidden,
  defineProperty,
  freeze,
  getOwnPropertyDescriptor,
  getOwnPropertyNames,
  hasOwn,
  indexOf,
  isAccessor,
  isFrozen,
  isOwnEnumerable,
  isWellFormed,
  joinList,
  jsonParse,
  jsonStringify,
  list,
  lookupGetter,
  lookupSetter,
  matches,
  objectKeys,
  ownKeys,
  push,
  record,
  reflectDefineProperty,
} from './primordials.js';
import { isProxy } from './proxy-tracking.js';
import { basicTypeName, settledTypeName, typeName } from './type-name.js';

/** The global object, captured before any guest code could shadow `globalThis`. */
const G: Record<string, unknown> = globalThis as unknown as Record<string, unknown>;
const NUMBERED = /^(context|history)_\d+$/;

/** Names the engine itself defines: never user variables. */
const baseline = record<Record<string, true>>();
/** Scaffold names (reserved, host functions, `context_N`, `history_N`). */
const reserved = record<Record<string, true>>();
/** Context helpers: hidden from the variable list only while they still hold the helper. */
const helpers = record<Record<string, unknown>>();
/** Scaffold values restored after every block: name → value. */
const pinned = record<Record<string, unknown>>();
/** The names in `pinned`, in the order they were first pinned. */
const pinnedNames = list<string>();
/**
 * For each pinned name, the partial descriptor `restore` puts back in one call (see there):
 * `{ value, writable: true, configurable: true }`, without a prototype (so no `get` inherited from
 * `Object.prototype` can turn it into an accessor). None for a number, which `restore` compares
 * with `===` (where `defineProperty` would tell `0` from `-0`).
 */
const restoring = record<Record<string, PropertyDescriptor | undefined>>();
/**
 * Names known never to be user variables (the engine's or the scaffold's): both sets only grow,
 * so a name once found in either is skipped at once by every later listing.
 */
const notUser = record<Record<string, true>>();

/**
 * The user's variables as the last block ended (`names`), plus those the host set since
 * (`added`): the names an out-of-memory recovery keeps (anything else was created by the block
 * that ran out). Kept here so a block need not list the globals before it runs.
 */
const known = record<{ names: string[]; added: Record<string, true> | undefined }>();
known.names = list<string>();
known.added = undefined;

/**
 * The global names as last classified, and those of them that are neither the engine's nor the
 * scaffold's (user variables, and helpers that may have been rebound). The global object's names
 * change only when a block (or the host) adds or deletes a global, so most listings find the same
 * names and skip classifying them again. The names are compared joined by NUL together with their
 * count: when no name holds a NUL (checked when they are classified), equal texts and counts
 * mean equal lists; a list with a NUL in a name is never reused.
 */
const listing = record<{
  joined: string;
  count: number;
  candidates: string[];
  /** Each candidate's JSON text, for `locals` (written once per listing, not once per block). */
  quoted: string[];
  /** The candidates that are helpers' names, in listing order. */
  helperNames: string[];
  /** The user's variables while every helper holds its helper, and their JSON texts. */
  users: string[];
  userTexts: string[];
  /**
   * The symbol keys of the global object as last listed. Held, as the listed names are (by the
   * lists above and the records of names that are not the user's), so that no key of the last
   * listing is freed while the host compares key atoms with it (see global-keys-watch.ts).
   */
  held: unknown[];
}>();
listing.joined = '';
listing.count = -1;
listing.candidates = list<string>();
listing.quoted = list<string>();
listing.helperNames = list<string>();
listing.users = list<string>();
listing.userTexts = list<string>();
listing.held = list<unknown>();

/** Records the names present before the scaffold adds anything, and the reserved ones. */
export function recordBaseline(reservedNames: readonly string[]): void {
  const names = getOwnPropertyNames(G);
  for (let index = 0; index < names.length; index++) baseline[names[index] as string] = true;
  for (let index = 0; index < reservedNames.length; index++) {
    reserved[reservedNames[index] as string] = true;
  }
}

export function isScaffold(name: string): boolean {
  return reserved[name] === true || matches(NUMBERED, name);
}

export function isBaseline(name: string): boolean {
  return baseline[name] === true;
}

export function defineGlobal(name: string, value: unknown): void {
  defineHidden(G, name, value);
}

/** Defines a scaffold global that is restored after every block. */
export function pin(name: string, value: unknown): void {
  if (!hasOwn(pinned, name)) append(pinnedNames, name);
  pinned[name] = value;
  if (typeof value === 'number') restoring[name] = undefined;
  else {
    const descriptor = record<PropertyDescriptor>();
    descriptor.value = value;
    descriptor.writable = true;
    descriptor.configurable = true;
    restoring[name] = descriptor;
  }
  reserved[name] = true;
  listing.count = -1;
  defineGlobal(name, value);
}

/** Defines a context helper: an ordinary global a model may rebind. */
export function defineHelper(name: string, value: unknown): void {
  helpers[name] = value;
  listing.count = -1;
  defineGlobal(name, value);
}

/** A global as an own property of the global object: its value, or that it is an accessor. */
export interface GlobalSlot {
  found: boolean;
  accessor: boolean;
  value: unknown;
}

export function globalSlot(name: string): GlobalSlot {
  const slot = record<GlobalSlot>();
  const descriptor = getOwnPropertyDescriptor(G, name);
  slot.found = descriptor !== undefined;
  slot.accessor = descriptor !== undefined && isAccessor(descriptor);
  slot.value = descriptor === undefined || slot.accessor ? undefined : descriptor.value;
  return slot;
}

/**
 * Lists the global object's keys and classifies its names when they changed (see `listing`);
 * returns how many keys it has (names and symbols).
 */
export function listGlobals(): number {
  const keys = ownKeys(G);
  const count = keys.length;
  // Symbol keys come last: set aside (and held), they leave the names in the same array.
  let names = count;
  while (names > 0 && typeof keys[names - 1] === 'symbol') names--;
  const held = list<unknown>();
  for (let index = names; index < count; index++) push(held, keys[index]);
  listing.held = held;
  if (names < count) keys.length = names;
  const joined = joinList(keys as string[], '\u0000');
  if (names !== listing.count || joined !== listing.joined) classify(keys as string[], joined);
  return count;
}

/** The user's variables: globals that are neither the engine's nor the scaffold's. */
export function userNames(): string[] {
  listGlobals();
  const candidates = listing.candidates;
  const out = list<string>();
  for (let index = 0; index < candidates.length; index++) {
    const name = candidates[index] as string;
    if (helpers[name] !== undefined && holdsHelper(name)) continue;
    push(out, name);
  }
  return out;
}

/**
 * Whether a helper's global still holds the helper itself (a data property, never a getter).
 * Without a descriptor: an own property with no getter is read without running guest code, and
 * an accessor without one reads as `undefined`, which is never a helper.
 */
function holdsHelper(name: string): boolean {
  return hasOwn(G, name) && lookupGetter(G, name) === undefined && G[name] === helpers[name];
}

/**
 * A user variable's type for `locals` (`typeName`, or `basicTypeName` when `basic`): `accessor`
 * for an accessor, `undefined` when it is gone. An own property with neither getter nor setter
 * is read directly; only a value of `undefined`, which an accessor with neither function also
 * reads as, needs the descriptor to tell them apart.
 */
function localType(name: string, basic: boolean): string {
  if (!hasOwn(G, name)) return 'undefined';
  if (lookupGetter(G, name) !== undefined || lookupSetter(G, name) !== undefined) return 'accessor';
  const value = G[name];
  if (value === undefined) {
    const descriptor = getOwnPropertyDescriptor(G, name);
    if (descriptor !== undefined && isAccessor(descriptor)) return 'accessor';
    return 'undefined';
  }
  return basic ? basicTypeName(value) : typeName(value);
}

/** Sorts the global names into the engine's and the scaffold's, and the rest (`listing`). */
function classify(names: string[], joined: string): void {
  const candidates = list<string>();
  const quoted = list<string>();
  const helperNames = list<string>();
  const users = list<string>();
  const userTexts = list<string>();
  let reusable = true;
  for (let index = 0; index < names.length; index++) {
    const name = names[index] as string;
    if (notUser[name] === true) continue;
    if (baseline[name] === true || isScaffold(name)) {
      notUser[name] = true;
      continue;
    }
    // The engine's and the scaffold's names hold no NUL; only these can.
    if (indexOf(name, '\u0000', 0) !== -1) reusable = false;
    const text = jsonStringify(name);
    push(candidates, name);
    push(quoted, text);
    if (helpers[name] !== undefined) {
      push(helperNames, name);
    } else {
      push(users, name);
      push(userTexts, text);
    }
  }
  listing.candidates = candidates;
  listing.quoted = quoted;
  listing.helperNames = helperNames;
  listing.users = users;
  listing.userTexts = userTexts;
  listing.joined = joined;
  listing.count = reusable ? names.length : -1;
}

/** `{ name: type }` of the user variables (see `typeName`: runs no guest code). */
export function locals(basic: boolean): string {
  listGlobals();
  return localsOfListing(basic);
}

/** `locals` of the globals as last listed (`listGlobals`). */
export function localsOfListing(basic: boolean): string {
  // The names first, as `userNames` gives them. While every helper holds its helper (the usual
  // case), they are the listing's own lists, which nothing changes.
  let names = listing.users;
  let texts = listing.userTexts;
  const helperNames = listing.helperNames;
  for (let index = 0; index < helperNames.length; index++) {
    if (!holdsHelper(helperNames[index] as string)) {
      names = list<string>();
      texts = list<string>();
      const candidates = listing.candidates;
      const quoted = listing.quoted;
      for (let at = 0; at < candidates.length; at++) {
        const name = candidates[at] as string;
        if (helpers[name] !== undefined && holdsHelper(name)) continue;
        push(names, name);
        push(texts, quoted[at] as string);
      }
      break;
    }
  }
  const entries = list<string>();
  for (let index = 0; index < names.length; index++) {
    // The JSON of `{ name: type }`, written directly: the names are distinct, in listing order,
    // and a type name is a plain lowercase word.
    push(entries, (texts[index] as string) + ':"' + localType(names[index] as string, basic) + '"');
  }
  known.names = names;
  known.added = undefined;
  return '{' + joinList(entries, ',') + '}';
}

/** Most characters `listVariables` serializes to measure one variable. */
const MAX_MEASURED_CHARS = 64 * 1024 * 1024;

/**
 * `[{ name, type, size }]` of the user variables; sizes only when asked. Runs no guest code:
 * types are `settledTypeName`, sizes call no getter (see json-copy.ts) and measure a Proxy as the
 * text `[Proxy]` without walking it (see proxy-tracking.ts).
 */
export function listVariables(withSizes: boolean): string {
  const names = userNames();
  const out = list<unknown>();
  for (let index = 0; index < names.length; index++) {
    const name = names[index] as string;
    const slot = globalSlot(name);
    const info = record<{ name: string; type: string; size: number }>();
    info.name = name;
    info.type = slot.accessor ? 'accessor' : settledTypeName(slot.value);
    info.size = slot.accessor || !withSizes ? 0 : sizeOf(slot.value, info.type);
    append(out, info);
  }
  return jsonText(out);
}

/**
 * The JSON length of a value; 0 when it cannot be measured (memory is short, a trap throws). A
 * function's is that of its JSON text (`"[Function: f]"`), from its own data `name` and its
 * settled type, without asking QuickJS for its source (which can read a `name` getter).
 */
function sizeOf(value: unknown, type: string): number {
  if (typeof value === 'string') return value.length;
  if (typeof value === 'function') {
    if (isProxy(value)) return '"[Proxy]"'.length;
    let name: unknown;
    try {
      name = ownData(value, 'name');
    } catch {
      name = '';
    }
    const label = typeof name === 'string' && name !== '' ? name : '(anonymous)';
    return (type === 'class' ? '"[class ]"' : '"[Function: ]"').length + label.length;
  }
  try {
    const text = toJsonText(value, MAX_MEASURED_CHARS, true);
    return typeof text === 'string' ? text.length : text.size;
  } catch {
    return 0;
  }
}

/**
 * A variable as the host reads it: `[0]` when there is none, `[1, text]` for a string that can
 * travel as it is, `[2, json]` for anything else, `[3, size]` when it is larger than `maxChars`.
 */
export function readVariable(name: string, maxChars: number): unknown[] {
  const slot = globalSlot(name);
  const out = list<unknown>();
  if (!slot.found || (baseline[name] === true && !isScaffold(name))) {
    append(out, 0);
    return out;
  }
  const value = slot.accessor ? null : slot.value;
  // The host reads strings as UTF-8 C strings: one holding a NUL or a lone surrogate travels as
  // JSON instead (which escapes both).
  if (typeof value === 'string' && isWellFormed(value) && indexOf(value, '\u0000', 0) === -1) {
    append(out, value.length > maxChars ? 3 : 1);
    append(out, value.length > maxChars ? value.length : value);
    return out;
  }
  const text = toJsonText(value, maxChars);
  append(out, typeof text === 'string' ? 2 : 3);
  append(out, typeof text === 'string' ? text : text.size);
  return out;
}

/** Sets a global from the host; scaffold names are pinned, `__rlm` deeply frozen. */
export function setVariable(name: string, value: unknown): void {
  if (name === '__rlm') pin(name, deepFreeze(value));
  else if (isScaffold(name)) pin(name, value);
  else {
    defineGlobal(name, value);
    if (known.added === undefined) known.added = record<Record<string, true>>();
    known.added[name] = true;
  }
}

export function setJson(name: string, json: string): void {
  setVariable(name, jsonParse(json));
}

/**
 * Empties the user variables created since the last block ended (see `known`); returns their
 * names (JSON). Top-level `var` bindings cannot be deleted: those are set to `undefined`.
 */
export function reclaimGlobals(): string {
  const kept = record<Record<string, true>>();
  for (let index = 0; index < known.names.length; index++)
    kept[known.names[index] as string] = true;
  const added = known.added;
  const names = list<string>();
  const all = userNames();
  for (let index = 0; index < all.length; index++) {
    const name = all[index] as string;
    if (kept[name] !== true && (added === undefined || added[name] !== true)) append(names, name);
  }
  deleteGlobals(names);
  return jsonText(names);
}

function deleteGlobals(names: string[]): void {
  for (let index = 0; index < names.length; index++) {
    const name = names[index] as string;
    const descriptor = getOwnPropertyDescriptor(G, name);
    if (descriptor === undefined) continue;
    if (descriptor.configurable === true) {
      delete G[name];
    } else if (!isAccessor(descriptor) && descriptor.writable === true) {
      const empty = record<PropertyDescriptor>();
      empty.value = undefined;
      defineProperty(G, name, empty);
    }
  }
}

/**
 * Puts back every scaffold global a block rebound; returns the names it could not restore.
 *
 * A pinned global ends up an own data property holding its value, writable and configurable; if
 * it already was one it is left as it is (enumerable or not), otherwise it is defined again as a
 * hidden global. Most blocks change none of them, and telling that with a descriptor per name
 * costs a block more than anything else here. So a name that is not enumerable (the usual case,
 * also when it is missing) first gets `defineProperty` with its partial descriptor: on an
 * ordinary object that runs no guest code, changes nothing when the global already is as wanted,
 * and otherwise makes it exactly what a hidden definition would (a missing or converted property
 * gets `enumerable: false` either way). It fails, changing nothing, only where the global cannot
 * be made so (not configurable, or the object not extensible): the descriptor check below then
 * decides, as it does for an enumerable name. `settled`: the host saw no key or flag of the
 * global object change since this last put every name back (see global-keys-watch.ts).
 */
export function restore(settled: boolean): string[] {
  const failed = list<string>();
  for (let index = 0; index < pinnedNames.length; index++) {
    const name = pinnedNames[index] as string;
    // Settled (see `ScaffoldInternals.finishBlock`): the global is the data property this left,
    // so reading it runs no guest code, and the same value means nothing to put back.
    if (settled && G[name] === pinned[name]) continue;
    const wanted = restoring[name];
    if (
      wanted !== undefined &&
      !isOwnEnumerable(G, name) &&
      reflectDefineProperty(G, name, wanted)
    ) {
      continue;
    }
    const descriptor = getOwnPropertyDescriptor(G, name);
    if (
      descriptor !== undefined &&
      !isAccessor(descriptor) &&
      descriptor.value === pinned[name] &&
      descriptor.writable === true &&
      descriptor.configurable === true
    ) {
      continue;
    }
    try {
      defineGlobal(name, pinned[name]);
    } catch {
      append(failed, name);
    }
  }
  return failed;
}

/** Freezes a host-provided JSON value and everything in it. */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || isFrozen(value)) return value;
  const keys = objectKeys(value);
  for (let index = 0; index < keys.length; index++) {
    deepFreeze((value as Record<string, unknown>)[keys[index] as string]);
  }
  return freeze(value);
}
