import { regexpFlags } from './brand-checks.js';
import {
  call,
  dataDescriptor,
  defineProperty,
  getOwnPropertyDescriptor,
  getPrototypeOf,
  isAccessor,
  jsonParse,
  list,
  type Method,
  mathMin,
  newWeakMap,
  ownKeys,
  push,
  RegExpPrototype,
  record,
  regexpSource,
  slice,
  weakMapLookup,
  weakMapSet,
} from './primordials.js';

/**
 * Idiomatic searches over long strings the host holds (the context), done by the host's engine.
 *
 * Guest code searches its context with the language's own methods (`context.indexOf(x)`,
 * `re.exec(context)` in a loop, `context.match(/…/g)`), which QuickJS runs in its interpreter:
 * 100–300× slower than V8 on a 50 MB string. The methods below replace a few built-ins; for a
 * string at least `minChars` long they ask the host (`native`, a synchronous host function) to
 * do the work on its own copy of that string, and build from the answer exactly the value the
 * built-in would have returned. The host answers only for strings it holds (it knows them by
 * their address in WASM memory) and for patterns it has proved it runs the same way; for anything
 * else (`NOT_HANDLED`), and for every short string, the original built-in runs.
 *
 * Only `RegExp.prototype.exec` needs to be fast for most regex methods: QuickJS's `test`,
 * `search`, `matchAll`, `replace` and a non-global `match` all find `exec` by property lookup and
 * call it. `[Symbol.match]` with `g` is replaced too, so a global match costs one host call, not
 * one per match.
 */

/** The synchronous host function: an operation code, the string, and its operands. */
// biome-ignore lint/complexity/useMaxParams: positional, so no call builds an argument array
export type NativeCall = (op: number, text: string, a: unknown, b: unknown, c: unknown) => unknown;

/** The host's answer when it does not handle a call: the built-in runs instead. */
const NOT_HANDLED = -2;
/** Operation codes; the host's list is in src/engine/host-string-ops.ts. */
const OP_INDEX_OF = 1;
const OP_LAST_INDEX_OF = 2;
const OP_EXEC = 3;
const OP_MATCH_ALL = 4;
const OP_SPLIT = 5;

/** QuickJS strings are at most 2^30 - 1 long: a larger threshold leaves every built-in alone. */
const NEVER = 1_073_741_824;

const nsStringPrototype = String.prototype;
const nsIndexOf = nsStringPrototype.indexOf as Method;
const nsLastIndexOf = nsStringPrototype.lastIndexOf as Method;
const nsIncludes = nsStringPrototype.includes as Method;
const nsCharCodeAt = nsStringPrototype.charCodeAt as Method;
const nsExec = RegExpPrototype.exec as Method;
const nsSymbolMatch: symbol = Symbol.match;
const nsMatch = (RegExpPrototype as unknown as Record<symbol, Method>)[nsSymbolMatch] as Method;
const nsSymbolSplit: symbol = Symbol.split;
const nsSymbolReplace: symbol = Symbol.replace;
const nsReplace = (RegExpPrototype as unknown as Record<symbol, Method>)[nsSymbolReplace] as Method;
const nsSplit = (RegExpPrototype as unknown as Record<symbol, Method>)[nsSymbolSplit] as Method;
const nsSetPrototypeOf = Object.setPrototypeOf;
const nsArrayPrototype = Array.prototype;
const nsUnicodeSets = unicodeSetsGetter();
const nsMathTrunc = Math.trunc;
const nsBind = Function.prototype.bind;
const nsCallMethod = Function.prototype.call;
/** A built-in as a function of its receiver and arguments (see `uncurry` in primordials.ts). */
function nsUncurry(method: Method): (receiver: unknown, ...args: unknown[]) => unknown {
  return call(nsBind, nsCallMethod, [method]);
}
const nsIndexOfCall = nsUncurry(nsIndexOf);
const nsLastIndexOfCall = nsUncurry(nsLastIndexOf);
const nsIncludesCall = nsUncurry(nsIncludes);
const nsExecCall = nsUncurry(nsExec);
const nsMatchCall = nsUncurry(nsMatch);
const nsSplitCall = nsUncurry(nsSplit);
const nsReplaceCall = nsUncurry(nsReplace);

/** `RegExp.prototype.unicodeSets`'s getter (the `v` flag), which brand-checks.ts does not list. */
function unicodeSetsGetter(): Method | undefined {
  const descriptor = getOwnPropertyDescriptor(RegExpPrototype, 'unicodeSets');
  return descriptor === undefined || !isAccessor(descriptor)
    ? undefined
    : (descriptor.get as Method | undefined);
}

/**
 * The sandbox's settings, given by `installNativeStrings`: until then (while the prelude is
 * evaluated, and in a blank engine) every method runs its built-in.
 */
let min = NEVER;
let native: NativeCall = () => NOT_HANDLED;
const state = record<{ native: NativeCall; exec: Method }>();
state.native = native;
/** Each replaced built-in's own descriptor, to put back when a sandbox turns the methods off. */
const nsReplaced = list<{ target: object; key: PropertyKey; descriptor: PropertyDescriptor }>();

/**
 * Gives the methods (put in place by `replaceNativeStrings`) the sandbox's host function and
 * `minChars` (from its limits); a `minChars` of `NEVER` or more puts every built-in back as it
 * was, so guest code sees no replaced method at all.
 */
export function installNativeStrings(nativeCall: NativeCall, minChars: number): void {
  if (!(minChars < NEVER)) {
    for (let index = 0; index < nsReplaced.length; index++) {
      const replaced = nsReplaced[index] as (typeof nsReplaced)[number];
      defineProperty(replaced.target, replaced.key, replaced.descriptor);
    }
    return;
  }
  min = minChars;
  native = nativeCall;
  state.native = nativeCall;
}

/**
 * Replaces built-ins with the methods below. It depends on no sandbox setting, so it runs when
 * the prelude is evaluated: an engine started from the prelude's image (see prelude-image.ts)
 * has it done already, and a sandbox's start only hands over its settings (no guest code runs
 * in between, so none can tell).
 */
export function replaceNativeStrings(): void {
  // The methods run for every call guest code makes, on short strings too: each keeps to one
  // comparison of the length before it calls the built-in directly (an uncurried call, no
  // argument array), and reads its settings from closure variables, not properties.
  // QuickJS's `[Symbol.split]` calls `exec` at every position of the string (through a sticky
  // copy of the pattern): on a long string, the built-in `exec` is put back for the time of a
  // split that no guest code can watch (a plain RegExp, see `splitUnwatched`), so those calls
  // cost what they cost before. Set and cleared by assignment; a split stopped by the block's
  // limits (no `finally` runs then) leaves the built-in in place, and the next split puts this
  // one back: until then `exec` merely stays in QuickJS.
  let swapped = false;
  const exchange = (from: Method, to: Method): boolean => {
    const current = getOwnPropertyDescriptor(RegExpPrototype, 'exec');
    if (current === undefined || isAccessor(current) || current.value !== from) return false;
    defineProperty(RegExpPrototype, 'exec', dataDescriptor(to, false));
    return true;
  };
  // biome-ignore lint/complexity/useMaxParams: a hot path; no options object per call
  const withBuiltinExec = (
    pattern: unknown,
    string: unknown,
    operand: unknown,
    unwatched: boolean,
    builtin: (pattern: unknown, string: unknown, operand: unknown) => unknown,
  ): unknown => {
    if (swapped) {
      exchange(nsExec, state.exec);
      swapped = false;
    }
    if (
      !unwatched ||
      typeof string !== 'string' ||
      string.length < min ||
      !splitUnwatched(state, pattern)
    ) {
      return builtin(pattern, string, operand);
    }
    swapped = exchange(state.exec, nsExec);
    try {
      return builtin(pattern, string, operand);
    } finally {
      if (swapped) exchange(nsExec, state.exec);
      swapped = false;
    }
  };
  const methods = {
    indexOf(this: unknown, searchString: unknown, position: unknown): unknown {
      if (typeof this === 'string' && this.length >= min && typeof searchString === 'string') {
        const found = nativeSearch(native, OP_INDEX_OF, this, searchString, position);
        if (found !== NOT_HANDLED) return found;
      }
      return nsIndexOfCall(this, searchString, position);
    },
    lastIndexOf(this: unknown, searchString: unknown, position: unknown): unknown {
      if (typeof this === 'string' && this.length >= min && typeof searchString === 'string') {
        const found = nativeSearch(native, OP_LAST_INDEX_OF, this, searchString, position);
        if (found !== NOT_HANDLED) return found;
      }
      return nsLastIndexOfCall(this, searchString, position);
    },
    includes(this: unknown, searchString: unknown, position: unknown): unknown {
      if (typeof this === 'string' && this.length >= min && typeof searchString === 'string') {
        const found = nativeSearch(native, OP_INDEX_OF, this, searchString, position);
        if (found !== NOT_HANDLED) return (found as number) >= 0;
      }
      return nsIncludesCall(this, searchString, position);
    },
    exec(this: unknown, string: unknown): unknown {
      if (typeof string === 'string' && string.length >= min) return fastExec(state, this, string);
      return nsExecCall(this, string);
    },
    [nsSymbolMatch](this: unknown, string: unknown): unknown {
      if (typeof string === 'string' && string.length >= min) return fastMatch(state, this, string);
      return nsMatchCall(this, string);
    },
    [nsSymbolSplit](this: unknown, string: unknown, limit: unknown): unknown {
      // A limit that is not a number is converted during the split: guest code would run then.
      const unwatched = limit === undefined || typeof limit === 'number';
      if (unwatched && typeof string === 'string' && string.length >= min) {
        const pieces = hostSplit(state, this, string, limit);
        if (pieces !== undefined) return pieces;
      }
      return withBuiltinExec(this, string, limit, unwatched, nsSplitCall);
    },
    // A global replace calls `exec` per match: dense matches are QuickJS's, so with a string
    // replacement (no guest callback to watch) the built-in `exec` runs it, as for a split.
    [nsSymbolReplace](this: unknown, string: unknown, replaceValue: unknown): unknown {
      return withBuiltinExec(
        this,
        string,
        replaceValue,
        typeof replaceValue === 'string',
        nsReplaceCall,
      );
    },
  };
  state.exec = methods.exec as Method;
  replaceMethod(nsStringPrototype, 'indexOf', methods.indexOf as Method);
  replaceMethod(nsStringPrototype, 'lastIndexOf', methods.lastIndexOf as Method);
  replaceMethod(nsStringPrototype, 'includes', methods.includes as Method);
  replaceMethod(RegExpPrototype, 'exec', state.exec);
  replaceMethod(RegExpPrototype, nsSymbolMatch, methods[nsSymbolMatch] as Method);
  replaceMethod(RegExpPrototype, nsSymbolSplit, methods[nsSymbolSplit] as Method);
  replaceMethod(RegExpPrototype, nsSymbolReplace, methods[nsSymbolReplace] as Method);
}

/**
 * `indexOf` / `lastIndexOf` of a long string on the host, or `NOT_HANDLED`. A position that is
 * not a number (its conversion may run guest code) stays with the built-in; an undefined one is
 * 0 for `indexOf` and NaN (from the end) for `lastIndexOf`.
 */
// biome-ignore lint/complexity/useMaxParams: a hot path; no options object per call
function nativeSearch(
  native: NativeCall,
  op: number,
  text: string,
  search: string,
  position: unknown,
): unknown {
  if (position === undefined) {
    return native(op, text, search, op === OP_INDEX_OF ? 0 : 0 / 0, undefined);
  }
  return typeof position === 'number' ? native(op, text, search, position, undefined) : NOT_HANDLED;
}

/** Puts `method` where a built-in was, with the built-in's length and property attributes. */
function replaceMethod(target: object, key: PropertyKey, method: Method): void {
  const original = getOwnPropertyDescriptor(target, key);
  if (original !== undefined) {
    const kept = record<{ target: object; key: PropertyKey; descriptor: PropertyDescriptor }>();
    kept.target = target;
    kept.key = key;
    kept.descriptor = original;
    push(nsReplaced, kept);
  }
  const lengthDescriptor = record<PropertyDescriptor>();
  // Read before any guest code runs: the built-in's own `length`.
  lengthDescriptor.value = original === undefined ? 1 : (original.value as Method).length;
  lengthDescriptor.configurable = true;
  defineProperty(method, 'length', lengthDescriptor);
  defineProperty(target, key, dataDescriptor(method, false));
}

function hasFlag(flags: string, flag: string): boolean {
  return call<number>(nsIndexOf, flags, [flag]) >= 0;
}

/** All flags of a genuine RegExp in `flags` order, from its internal slots (no guest code). */
function flagsOf(pattern: object): string {
  const flags = regexpFlags(pattern);
  if (nsUnicodeSets === undefined || !call<boolean>(nsUnicodeSets, pattern, [])) return flags;
  // `v` sorts between `u` (which it excludes) and `y`.
  return hasFlag(flags, 'y') ? slice(flags, 0, flags.length - 1) + 'vy' : flags + 'v';
}

/** Whether `value` is a RegExp object (its internal slot, not `Symbol.match` or a prototype). */
function isRegExp(value: unknown): value is object {
  if (typeof value !== 'object' || value === null || value === RegExpPrototype) return false;
  try {
    call(regexpSource, value, []);
    return true;
  } catch {
    return false;
  }
}

/** ToLength of a number. */
function toLength(value: number): number {
  if (!(value > 0)) return 0;
  return mathMin(nsMathTrunc(value), 9_007_199_254_740_991);
}

/** Whether `index` falls between the two halves of a surrogate pair of `text`. */
function splitsPair(text: string, index: number): boolean {
  if (index <= 0 || index >= text.length) return false;
  const before = call<number>(nsCharCodeAt, text, [index - 1]);
  const at = call<number>(nsCharCodeAt, text, [index]);
  return before >= 0xd800 && before <= 0xdbff && at >= 0xdc00 && at <= 0xdfff;
}

/**
 * A host call costs tens of microseconds, more than QuickJS takes to find a match a few hundred
 * characters on: so `exec` in a loop over dense matches (and `replace`, `matchAll`, `split`,
 * which call `exec` per match or per position) is faster in QuickJS. Each pattern object's route
 * is kept here: the distance from where its last search started to where it matched, or
 * `ALWAYS_QUICKJS` for a pattern the host cannot take (sticky, unsupported). A distance below
 * `DENSE_GAP` sends the next search to QuickJS, which measures the distance again; a null result
 * or a longer distance sends it back to the host. Only speed depends on this, never results.
 */
const nsRoutes = newWeakMap<object, number>();
const DENSE_GAP = 1024;
const ALWAYS_QUICKJS = -1;

function routeTo(pattern: object, gap: number): void {
  call(weakMapSet, nsRoutes, [pattern, gap]);
}

/** `exec` by QuickJS on a long string, measuring the distance to the match for the route. */
function quickJsExec(pattern: object, text: string): unknown {
  const from = (pattern as { lastIndex: unknown }).lastIndex;
  const result = nsExecCall(pattern, text);
  if (result === null) routeTo(pattern, DENSE_GAP);
  else if (typeof from === 'number') {
    const start = (result as { index: number }).index;
    routeTo(pattern, start - (from > 0 && from <= start ? from : 0));
  }
  return result;
}

/**
 * `RegExp.prototype.exec` on a long string: what RegExpBuiltinExec reads is the pattern's
 * internal slots and its own `lastIndex` (a non-configurable data property, so no getter runs),
 * and what it writes is `lastIndex`, which is done here by assignment so a non-writable one
 * throws as it does in QuickJS.
 */
// biome-ignore lint/complexity/noExcessiveCognitiveComplexity: RegExpBuiltinExec's steps, in order
function fastExec(state: { native: NativeCall }, pattern: unknown, text: string): unknown {
  if (typeof pattern !== 'object' || pattern === null) return nsExecCall(pattern, text);
  const route = weakMapLookup(nsRoutes, pattern);
  if (route === ALWAYS_QUICKJS) return nsExecCall(pattern, text);
  if (route !== undefined && route < DENSE_GAP) return quickJsExec(pattern, text);
  if (!isRegExp(pattern)) return nsExecCall(pattern, text);
  const flags = flagsOf(pattern);
  const lastIndexValue = (pattern as { lastIndex: unknown }).lastIndex;
  if (hasFlag(flags, 'y')) {
    routeTo(pattern, ALWAYS_QUICKJS);
    return nsExecCall(pattern, text);
  }
  if (typeof lastIndexValue !== 'number') return nsExecCall(pattern, text);
  const global = hasFlag(flags, 'g');
  const from = global ? toLength(lastIndexValue) : 0;
  const writable = pattern as { lastIndex: number };
  if (from > text.length) {
    writable.lastIndex = 0;
    return null;
  }
  if ((hasFlag(flags, 'u') || hasFlag(flags, 'v')) && splitsPair(text, from)) {
    return nsExecCall(pattern, text);
  }
  const answer = state.native(OP_EXEC, text, call<string>(regexpSource, pattern, []), flags, from);
  if (answer === NOT_HANDLED || (typeof answer !== 'string' && answer !== -1)) {
    // Not a string the host holds, or a pattern it leaves to QuickJS: measure QuickJS's distance.
    return quickJsExec(pattern, text);
  }
  if (answer === -1) {
    if (global) writable.lastIndex = 0;
    return null;
  }
  const parts = jsonParse(answer as string) as (number | (string | null)[])[];
  routeTo(pattern, (parts[1] as number) - from);
  if (global) writable.lastIndex = parts[2] as number;
  return matchArray(text, parts, hasFlag(flags, 'd'));
}

/**
 * The array `exec` returns, built as QuickJS builds it: captures, `index`, `input`, `groups`
 * (an object without a prototype when the pattern names groups, else undefined) and, with the
 * `d` flag, `indices` (pairs, with their own `groups`). `parts` is the host's answer: the group
 * names by capture number (0 when there are none), then a start and an end per capture (-1 for
 * one that did not take part). Arrays are filled while they have no prototype, so no setter a
 * guest put on `Array.prototype` is reached, then given `Array.prototype`.
 */
// biome-ignore lint/complexity/noExcessiveCognitiveComplexity: one pass mirrors QuickJS's own loop
function matchArray(
  text: string,
  parts: (number | (string | null)[])[],
  withIndices: boolean,
): unknown[] {
  const names = parts[0] === 0 ? undefined : (parts[0] as (string | null)[]);
  const count = (parts.length - 1) / 2;
  const result = list<unknown>();
  const groups = names === undefined ? undefined : record<Record<string, unknown>>();
  const indices = withIndices ? list<unknown>() : undefined;
  const indexGroups =
    withIndices && names !== undefined ? record<Record<string, unknown>>() : undefined;
  for (let index = 0; index < count; index++) {
    const start = parts[1 + 2 * index] as number;
    const end = parts[2 + 2 * index] as number;
    const value = start < 0 ? undefined : slice(text, start, end);
    const name = names === undefined || index === 0 ? null : names[index];
    if (indices !== undefined) {
      let pair: number[] | undefined;
      if (start >= 0) {
        pair = list<number>();
        push(pair, start);
        push(pair, end);
        nsSetPrototypeOf(pair, nsArrayPrototype);
      }
      if (indexGroups !== undefined && typeof name === 'string') indexGroups[name] = pair;
      push(indices, pair);
    }
    if (groups !== undefined && typeof name === 'string') groups[name] = value;
    push(result, value);
  }
  const fields = result as unknown as MatchFields;
  fields.index = parts[1];
  fields.input = text;
  fields.groups = groups;
  if (indices !== undefined) {
    (indices as unknown as MatchFields).groups = indexGroups;
    nsSetPrototypeOf(indices, nsArrayPrototype);
    fields.indices = indices;
  }
  nsSetPrototypeOf(result, nsArrayPrototype);
  return result;
}

interface MatchFields {
  index: unknown;
  input: unknown;
  groups: unknown;
  indices: unknown;
}

/** The properties of `RegExp.prototype` a global match reads, with the values that make it ours. */
const nsMatchReads: readonly PropertyKey[] = [
  'flags',
  'hasIndices',
  'global',
  'ignoreCase',
  'multiline',
  'dotAll',
  'unicode',
  'unicodeSets',
  'sticky',
];
const nsOriginalGetters = originalGetters();

function originalGetters(): Method[] {
  const getters = list<Method>();
  for (let index = 0; index < nsMatchReads.length; index++) {
    const descriptor = getOwnPropertyDescriptor(RegExpPrototype, nsMatchReads[index] as string);
    push(getters, (descriptor === undefined ? undefined : descriptor.get) as Method);
  }
  return getters;
}

/**
 * Whether a global match on `pattern` reads nothing guest code defined: a plain RegExp (no
 * subclass, no own property but `lastIndex`) whose prototype's flag getters are the built-ins
 * and whose `exec` is ours. Then the whole loop of the spec's `[Symbol.match]` (set `lastIndex`
 * to 0, exec until null, step past empty matches) is one search on the host.
 */
function plainRegExp(state: { exec: Method }, pattern: object): boolean {
  if (getPrototypeOf(pattern) !== RegExpPrototype || ownKeys(pattern).length !== 1) return false;
  for (let index = 0; index < nsMatchReads.length; index++) {
    const descriptor = getOwnPropertyDescriptor(RegExpPrototype, nsMatchReads[index] as string);
    const getter = descriptor === undefined || !isAccessor(descriptor) ? null : descriptor.get;
    if (getter !== nsOriginalGetters[index]) return false;
  }
  const exec = getOwnPropertyDescriptor(RegExpPrototype, 'exec');
  return exec !== undefined && !isAccessor(exec) && exec.value === state.exec;
}

const nsRegExpCtor = RegExp;
const nsSpeciesGetter = speciesGetter();

function speciesGetter(): Method | undefined {
  const descriptor = getOwnPropertyDescriptor(nsRegExpCtor, Symbol.species);
  return descriptor === undefined ? undefined : (descriptor.get as Method | undefined);
}

/**
 * Whether QuickJS's `[Symbol.split]` on `pattern` runs no guest code: a plain RegExp (see
 * `plainRegExp`) whose species constructor, found through `RegExp.prototype.constructor` and
 * `RegExp[Symbol.species]`, is the built-in `RegExp`.
 */
function splitUnwatched(state: { exec: Method }, pattern: unknown): boolean {
  if (!isRegExp(pattern) || !plainRegExp(state, pattern)) return false;
  const maker = getOwnPropertyDescriptor(RegExpPrototype, 'constructor');
  const species = getOwnPropertyDescriptor(nsRegExpCtor, Symbol.species);
  return (
    maker !== undefined &&
    !isAccessor(maker) &&
    maker.value === nsRegExpCtor &&
    species !== undefined &&
    species.get === nsSpeciesGetter
  );
}

/**
 * `RegExp.prototype[Symbol.split]` of a long string on the host, for a split no guest code can
 * watch (see `splitUnwatched`) by a pattern without capture groups; `undefined` otherwise.
 */
// biome-ignore lint/complexity/useMaxParams: the split's own operands, passed straight on
function hostSplit(
  state: { native: NativeCall; exec: Method },
  pattern: unknown,
  text: string,
  limit: unknown,
): unknown[] | undefined {
  if (!splitUnwatched(state, pattern)) return undefined;
  const source = call<string>(regexpSource, pattern, []);
  const answer = state.native(OP_SPLIT, text, source, flagsOf(pattern as object), limit);
  if (typeof answer !== 'string') return undefined;
  const bounds = jsonParse(answer) as number[];
  const pieces = list<string>();
  for (let index = 0; index < bounds.length; index += 2) {
    push(pieces, slice(text, bounds[index] as number, bounds[index + 1] as number));
  }
  nsSetPrototypeOf(pieces, nsArrayPrototype);
  return pieces;
}

/** `RegExp.prototype[Symbol.match]` on a long string. */
function fastMatch(
  state: { native: NativeCall; exec: Method },
  pattern: unknown,
  text: string,
): unknown {
  if (!isRegExp(pattern) || !plainRegExp(state, pattern)) return nsMatchCall(pattern, text);
  const flags = flagsOf(pattern);
  // Without `g` the built-in makes one `exec` call, which is ours; sticky stays with QuickJS.
  if (!hasFlag(flags, 'g') || hasFlag(flags, 'y')) return nsMatchCall(pattern, text);
  (pattern as { lastIndex: number }).lastIndex = 0;
  const answer = state.native(
    OP_MATCH_ALL,
    text,
    call<string>(regexpSource, pattern, []),
    flags,
    undefined,
  );
  if (typeof answer !== 'string') return nsMatchCall(pattern, text);
  const bounds = jsonParse(answer) as number[];
  if (bounds.length === 0) return null;
  const found = list<string>();
  for (let index = 0; index < bounds.length; index += 2) {
    push(found, slice(text, bounds[index] as number, bounds[index + 1] as number));
  }
  nsSetPrototypeOf(found, nsArrayPrototype);
  return found;
}
