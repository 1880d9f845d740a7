import { brandOf, ownData, regexpText } from './brand-checks.js';
import {
  append,
  call,
  dateToIsoString,
  errorToString,
  getOwnPropertyDescriptor,
  getPrototypeOf,
  indexOf,
  isAccessor,
  joinList,
  jsonStringify,
  list,
  mapEntries,
  mapIteratorNext,
  mapSize,
  matches,
  mathMin,
  newSet,
  ObjectPrototype,
  objectToString,
  ownKeys,
  repeat,
  StringCtor,
  setAdd,
  setDelete,
  setHas,
  setIteratorNext,
  setSize,
  setValues,
  slice,
  symbolToString,
} from './primordials.js';
import { isClass } from './type-name.js';

/**
 * Readable printing of guest values (what `print` and the last expression show), in the style of
 * Node's `util.inspect`: depth 4, 100 items, 10,000 characters per nested string, `[Circular]`.
 *
 * It reads guest objects (own keys, descriptors, prototypes, an error's `stack`), so a Proxy trap
 * can run: the host calls it only inside a block, under the block's CPU budget and abort. Getters
 * are shown as `[Getter]`, never called.
 */

const MAX_DEPTH = 4;
const MAX_ITEMS = 100;
const MAX_STRING = 10_000;
const LINE_WIDTH = 72;
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const INDEX = /^\d+$/;

interface Walk {
  /** Objects being printed on the current path (cycle detection). */
  path: Set<unknown>;
  depth: number;
  indent: number;
}

/** The text of a string in single quotes, as Node shows it, cut at 10,000 characters. */
export function quote(text: string): string {
  const cut = text.length > MAX_STRING ? text.length - MAX_STRING : 0;
  const json: string = jsonStringify(cut > 0 ? slice(text, 0, MAX_STRING) : text);
  const quoted = "'" + singleQuotedBody(json) + "'";
  return cut > 0 ? quoted + '... ' + cut + ' more characters' : quoted;
}

/** Turns the inside of a JSON string literal into the inside of a single-quoted one. */
function singleQuotedBody(json: string): string {
  const parts = list<string>();
  const end = json.length - 1;
  let from = 1;
  for (;;) {
    const next = nextSpecial(json, from, end);
    append(parts, slice(json, from, next));
    if (next >= end) break;
    if (json[next] === "'") {
      append(parts, "\\'");
      from = next + 1;
    } else {
      const escaped = slice(json, next, next + 2);
      append(parts, escaped === '\\"' ? '"' : escaped);
      from = next + 2;
    }
  }
  return joinList(parts, '');
}

/** The next backslash or apostrophe at or after `from`, or `end`. */
function nextSpecial(json: string, from: number, end: number): number {
  const backslash = indexOf(json, '\\', from);
  const apostrophe = indexOf(json, "'", from);
  return mathMin(
    backslash < 0 || backslash > end ? end : backslash,
    apostrophe < 0 || apostrophe > end ? end : apostrophe,
  );
}

function keyText(key: string | symbol): string {
  if (typeof key === 'symbol') return '[' + call<string>(symbolToString, key, []) + ']';
  return matches(IDENTIFIER, key) ? key : quote(key);
}

/** `[Function: name]` or `[class Name]`. */
export function functionText(fn: object): string {
  let name = '';
  try {
    const value = ownData(fn, 'name');
    name = typeof value === 'string' ? value : '';
  } catch {
    name = '';
  }
  if (isClass(fn)) return '[class ' + (name || '(anonymous)') + ']';
  return '[Function: ' + (name || '(anonymous)') + ']';
}

/** Entries inside `brackets` (`[]` or `{}`): on one line when short, else one per line. */
function wrap(brackets: '[]' | '{}', entries: string[], indent: number): string {
  const open = brackets[0] as string;
  const close = brackets[1] as string;
  if (entries.length === 0) return open + close;
  const single = open + ' ' + joinList(entries, ', ') + ' ' + close;
  let multiline = false;
  for (let index = 0; index < entries.length; index++) {
    if (indexOf(entries[index] as string, '\n', 0) >= 0) multiline = true;
  }
  if (!multiline && single.length + indent <= LINE_WIDTH) return single;
  const pad = repeat(' ', indent + 2);
  return open + '\n' + pad + joinList(entries, ',\n' + pad) + '\n' + repeat(' ', indent) + close;
}

function nested(walk: Walk): Walk {
  return { path: walk.path, depth: walk.depth + 1, indent: walk.indent + 2 };
}

function propertyEntries(value: object, walk: Walk, skipIndices: boolean): string[] {
  const entries = list<string>();
  const keys = ownKeys(value);
  let shown = 0;
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index] as string | symbol;
    if (skipIndices && typeof key === 'string' && (key === 'length' || matches(INDEX, key))) {
      continue;
    }
    const descriptor = getOwnPropertyDescriptor(value, key);
    if (descriptor === undefined || descriptor.enumerable !== true) continue;
    shown++;
    if (shown > MAX_ITEMS) continue;
    append(entries, keyText(key) + ': ' + accessorOrValue(descriptor, nested(walk)));
  }
  if (shown > MAX_ITEMS) append(entries, '... ' + (shown - MAX_ITEMS) + ' more properties');
  return entries;
}

function accessorOrValue(descriptor: PropertyDescriptor, walk: Walk): string {
  if (!isAccessor(descriptor)) return inspectAt(descriptor.value, walk);
  if (descriptor.get !== undefined && descriptor.set !== undefined) return '[Getter/Setter]';
  return descriptor.get !== undefined ? '[Getter]' : '[Setter]';
}

function errorText(value: object): string {
  let stack = '';
  try {
    const own = (value as { stack?: unknown }).stack;
    stack = typeof own === 'string' ? own : '';
  } catch {
    stack = '';
  }
  let head = 'Error';
  try {
    head = call(errorToString, value, []);
  } catch {
    head = 'Error';
  }
  if (!stack) return head;
  return (
    head +
    '\n' +
    (stack.length > 0 && stack[stack.length - 1] === '\n' ? slice(stack, 0, -1) : stack)
  );
}

function arrayText(value: object, walk: Walk): string {
  const items = list<string>();
  const length = ownData(value, 'length');
  const count = typeof length === 'number' ? length : 0;
  const limit = mathMin(count, MAX_ITEMS);
  for (let index = 0; index < limit; index++) {
    const descriptor = getOwnPropertyDescriptor(value, StringCtor(index));
    append(
      items,
      descriptor === undefined
        ? '<empty>'
        : isAccessor(descriptor)
          ? '[Getter]'
          : inspectAt(descriptor.value, nested(walk)),
    );
  }
  if (count > MAX_ITEMS) append(items, '... ' + (count - MAX_ITEMS) + ' more items');
  const extra = propertyEntries(value, walk, true);
  for (let index = 0; index < extra.length; index++) append(items, extra[index] as string);
  return wrap('[]', items, walk.indent);
}

function collectionText(value: object, walk: Walk, kind: 'map' | 'set'): string {
  const items = list<string>();
  const inner = nested(walk);
  const iterator = call<object>(kind === 'map' ? mapEntries : setValues, value, []);
  const next = kind === 'map' ? mapIteratorNext : setIteratorNext;
  let count = 0;
  for (;;) {
    const step = call<{ done: boolean; value: unknown }>(next, iterator, []);
    if (step.done) break;
    count++;
    if (count > MAX_ITEMS) continue;
    if (kind === 'map') {
      const entry = step.value as [unknown, unknown];
      append(items, inspectAt(entry[0], inner) + ' => ' + inspectAt(entry[1], inner));
    } else {
      append(items, inspectAt(step.value, inner));
    }
  }
  if (count > MAX_ITEMS) append(items, '... ' + (count - MAX_ITEMS) + ' more items');
  const size = call<number>(kind === 'map' ? mapSize : setSize, value, []);
  return (kind === 'map' ? 'Map' : 'Set') + '(' + size + ') ' + wrap('{}', items, walk.indent);
}

function constructorPrefix(value: object): string {
  const prototype: unknown = getPrototypeOf(value);
  if (prototype === null) return '[Object: null prototype] ';
  if (prototype === ObjectPrototype || typeof prototype !== 'object') return '';
  const maker = ownData(prototype, 'constructor');
  if (typeof maker !== 'function') return '';
  const name = ownData(maker, 'name');
  return typeof name === 'string' && name ? name + ' ' : '';
}

function objectText(value: object, walk: Walk): string {
  const brand = brandOf(value);
  if (brand === 'date') {
    try {
      return call(dateToIsoString, value, []);
    } catch {
      return 'Invalid Date';
    }
  }
  if (brand === 'regexp') return regexpText(value);
  const tag: string = call(objectToString, value, []);
  if (tag === '[object Error]') return errorText(value);
  if (tag === '[object Promise]') return 'Promise {}';
  if (walk.depth > MAX_DEPTH) return brand === 'array' ? '[Array]' : '[Object]';
  call(setAdd, walk.path, [value]);
  try {
    if (brand === 'array') return arrayText(value, walk);
    if (brand === 'map' || brand === 'set') return collectionText(value, walk, brand);
    return constructorPrefix(value) + wrap('{}', propertyEntries(value, walk, false), walk.indent);
  } finally {
    call(setDelete, walk.path, [value]);
  }
}

function inspectAt(value: unknown, walk: Walk): string {
  switch (typeof value) {
    case 'string':
      return quote(value);
    case 'number':
      return value === 0 && 1 / value < 0 ? '-0' : StringCtor(value);
    case 'bigint':
      return StringCtor(value) + 'n';
    case 'boolean':
    case 'undefined':
      return StringCtor(value);
    case 'symbol':
      return call(symbolToString, value, []);
    case 'function':
      return functionText(value);
    default:
      if (value === null) return 'null';
      if (call<boolean>(setHas, walk.path, [value])) return '[Circular]';
      return objectText(value as object, walk);
  }
}

/**
 * The walk a value that is not an object starts with: printing one reads no walk state (only
 * `objectText` uses the path), so it needs no Set of its own.
 */
const FLAT_WALK: Walk = { path: newSet<unknown>(), depth: 0, indent: 0 };

/** Prints any guest value readably. */
export function inspect(value: unknown): string {
  if (value === null || typeof value !== 'object') return inspectAt(value, FLAT_WALK);
  return inspectAt(value, { path: newSet<unknown>(), depth: 0, indent: 0 });
}

/** `print`'s formatting: strings as they are, everything else inspected, joined by spaces. */
export function formatArgs(args: ArrayLike<unknown>): string {
  // One argument (the usual `print(x)`): the same text, without a list to join.
  if (args.length === 1) {
    const only = args[0];
    return typeof only === 'string' ? only : inspect(only);
  }
  const parts = list<string>();
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    append(parts, typeof arg === 'string' ? arg : inspect(arg));
  }
  return joinList(parts, ' ');
}
