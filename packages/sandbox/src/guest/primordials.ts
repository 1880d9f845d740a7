/**
 * Every built-in the scaffold relies on, captured when the prelude runs, before any guest code
 * (the way Node's own `primordials` work). Guest code may later replace `Array.prototype.push`,
 * put a setter at `Array.prototype[0]`, define `Object.prototype.toJSON` or `Object.prototype.get`;
 * none of that reaches the scaffold, which never looks those names up again.
 *
 * The rest of the scaffold follows three rules on top of this module:
 * - methods are called through `call(method, receiver, args)` with a captured method, or through
 *   the functions below that `uncurry` one (the scaffold's hot paths);
 * - the scaffold's own arrays come from `list()` and its records from `record()`: they have no
 *   prototype, so no inherited setter, getter or `toJSON` can be reached through them, and
 *   property descriptors are built by `dataDescriptor()` for the same reason;
 * - descriptors are read through `isAccessor()`: a data descriptor has no own `get`, so reading
 *   `descriptor.get` would reach `Object.prototype`.
 * The embed script refuses the syntax that would consult mutable built-ins (for…of, spread, …).
 */

/** Any function a captured method can be; calls go through `call()`. */
export type Method = (...args: never[]) => unknown;

const ObjectCtor = Object;
export const defineProperty = ObjectCtor.defineProperty;
export const getOwnPropertyDescriptor = ObjectCtor.getOwnPropertyDescriptor;
export const getOwnPropertyNames = ObjectCtor.getOwnPropertyNames;
export const getPrototypeOf = ObjectCtor.getPrototypeOf;
export const objectKeys = ObjectCtor.keys;
export const freeze = ObjectCtor.freeze;
export const isFrozen = ObjectCtor.isFrozen;
export const hasOwn = ObjectCtor.hasOwn;
export const ObjectPrototype = ObjectCtor.prototype;
const setPrototypeOf = ObjectCtor.setPrototypeOf;
const objectCreate = ObjectCtor.create;
export const objectToString = ObjectPrototype.toString;
const reflectApply = Reflect.apply;
const functionCall = Function.prototype.call;
const functionBind = Function.prototype.bind;
export const ownKeys = Reflect.ownKeys;
export const reflectDefineProperty = Reflect.defineProperty;
export const jsonStringify = JSON.stringify;
export const jsonParse = JSON.parse;
export const isArray = Array.isArray;
const arrayPush = Array.prototype.push;
const arrayJoin = Array.prototype.join;
export const StringCtor = String;
const stringSlice = String.prototype.slice;
const stringRepeat = String.prototype.repeat;
const stringIndexOf = String.prototype.indexOf;
const stringTrim = String.prototype.trim;
// isWellFormed is ES2024, beyond the lib this package is typed against; QuickJS has it.
const stringIsWellFormed = (String.prototype as unknown as { isWellFormed: Method }).isWellFormed;
export const functionToString = Function.prototype.toString;
export const ErrorCtor = Error;
export const errorToString = Error.prototype.toString;
export const symbolToString = Symbol.prototype.toString;
export const toStringTagSymbol: symbol = Symbol.toStringTag;
export const dateToIsoString = Date.prototype.toISOString;
export const dateGetTime = Date.prototype.getTime;
export const RegExpPrototype = RegExp.prototype;
const regexpExec = RegExp.prototype.exec;
export const PromiseCtor = Promise;
export const promiseReject = Promise.reject;
export const ArrayBufferCtor = ArrayBuffer;
export const mathMin = Math.min;
export const numberIsNaN = Number.isNaN;
export const numberIsFinite = Number.isFinite;
const WeakMapCtor = WeakMap;
export const weakMapGet = WeakMap.prototype.get;
export const weakMapSet = WeakMap.prototype.set;
const SetCtor = Set;
export const setAdd = Set.prototype.add;
export const setHas = Set.prototype.has;
export const setDelete = Set.prototype.delete;
export const mapEntries = Map.prototype.entries;
export const setValues = Set.prototype.values;
export const mapIteratorNext = getPrototypeOf(new Map().entries()).next as Method;
export const setIteratorNext = getPrototypeOf(new Set().values()).next as Method;

/** A built-in accessor's getter, for brand checks and reads that no guest code can intercept. */
function getterOf(prototype: object, key: string): Method {
  const descriptor = getOwnPropertyDescriptor(prototype, key);
  const getter = descriptor === undefined ? undefined : descriptor.get;
  if (getter === undefined) throw new ErrorCtor('prelude: no getter ' + key);
  return getter as Method;
}
export const mapSize = getterOf(Map.prototype, 'size');
export const setSize = getterOf(Set.prototype, 'size');
export const regexpSource = getterOf(RegExp.prototype, 'source');
/** The flag getters, in the order `RegExp.prototype.flags` lists them. */
export const regexpFlagGetters: readonly (readonly [string, Method])[] = [
  ['d', getterOf(RegExp.prototype, 'hasIndices')],
  ['g', getterOf(RegExp.prototype, 'global')],
  ['i', getterOf(RegExp.prototype, 'ignoreCase')],
  ['m', getterOf(RegExp.prototype, 'multiline')],
  ['s', getterOf(RegExp.prototype, 'dotAll')],
  ['u', getterOf(RegExp.prototype, 'unicode')],
  ['y', getterOf(RegExp.prototype, 'sticky')],
];

/**
 * A captured method as a plain function of its receiver and arguments: `Function.prototype.call`
 * bound once, here, to the method. A call through it looks nothing up and, unlike `call()`,
 * builds no argument array: QuickJS runs the bound `call` natively, about twice as fast.
 */
function uncurry<TArgs extends unknown[], TResult>(
  method: Method,
): (receiver: unknown, ...args: TArgs) => TResult {
  return reflectApply(functionBind, functionCall, [method]) as (
    receiver: unknown,
    ...args: TArgs
  ) => TResult;
}

const pushOne = uncurry<[unknown], number>(arrayPush);
const joinWith = uncurry<[string], string>(arrayJoin);
const sliceText = uncurry<[number, number | undefined], string>(stringSlice);
const indexOfText = uncurry<[string, number], number>(stringIndexOf);
const execPattern = uncurry<[string], unknown>(regexpExec);
type LookupAccessor = (target: object, key: PropertyKey) => Method | undefined;
const accessorLookups = ObjectPrototype as unknown as {
  __lookupGetter__: Method;
  __lookupSetter__: Method;
};
/**
 * The getter (setter) of a property, searched from `target` up its prototypes and stopping at
 * the first object that has the property: for an own data property, `undefined` without
 * allocating a descriptor. Reads no property and so runs no guest code on ordinary objects (a
 * Proxy met on the way up runs its `getOwnPropertyDescriptor` trap).
 */
export const lookupGetter = uncurry(accessorLookups.__lookupGetter__) as LookupAccessor;
export const lookupSetter = uncurry(accessorLookups.__lookupSetter__) as LookupAccessor;
/** Whether `target` has an own enumerable property `key` (no guest code on ordinary objects). */
export const isOwnEnumerable = uncurry(ObjectPrototype.propertyIsEnumerable as Method) as (
  target: object,
  key: PropertyKey,
) => boolean;

/**
 * `WeakMap.prototype.get` as a function of the map and the key: the lookups naming a variable's
 * type make every block, for each object and function variable (a quarter of what `call` costs).
 */
export const weakMapLookup = uncurry(weakMapGet) as <TValue>(
  map: WeakMap<object, TValue>,
  key: object,
) => TValue | undefined;

/** Calls a captured method (never looked up on the receiver). */
export function call<TResult>(
  method: Method,
  receiver: unknown,
  args: ArrayLike<unknown>,
): TResult {
  return reflectApply(method as (...args: unknown[]) => unknown, receiver, args) as TResult;
}

/** A new array without a prototype: appending to it can reach no inherited setter. */
export function list<T>(): T[] {
  return setPrototypeOf([], null) as T[];
}

export function append<T>(items: T[], value: T): void {
  pushOne(items, value);
}

/**
 * Appends to an array made by `list()`, without a call: it has no prototype, so the store can
 * reach no setter. (Only for `list()` arrays; `append` takes any array.)
 */
export function push<T>(items: T[], value: T): void {
  items[items.length] = value;
}

export function joinList(items: readonly string[], separator: string): string {
  return joinWith(items, separator);
}

/** A new object without a prototype: reading a missing key yields `undefined`, nothing else. */
export function record<T extends object>(): T {
  return objectCreate(null) as T;
}

/** A descriptor of a data property (without a prototype, so no inherited `get` can sneak in). */
export function dataDescriptor(value: unknown, enumerable: boolean): PropertyDescriptor {
  const descriptor = record<PropertyDescriptor>();
  descriptor.value = value;
  descriptor.writable = true;
  descriptor.enumerable = enumerable;
  descriptor.configurable = true;
  return descriptor;
}

/** Defines (or redefines) a non-enumerable data property without running any setter. */
export function defineHidden(target: object, key: PropertyKey, value: unknown): void {
  defineProperty(target, key, dataDescriptor(value, false));
}

/** Defines (or redefines) an enumerable data property without running any setter. */
export function defineEnumerable(target: object, key: PropertyKey, value: unknown): void {
  defineProperty(target, key, dataDescriptor(value, true));
}

/** Whether a descriptor from `getOwnPropertyDescriptor` describes an accessor. */
export function isAccessor(descriptor: PropertyDescriptor): boolean {
  return hasOwn(descriptor, 'get');
}

/** A new Set the scaffold uses privately (its methods are the captured ones). */
export function newSet<T>(): Set<T> {
  return new SetCtor<T>();
}

/** A new WeakMap the scaffold uses privately. */
export function newWeakMap<TKey extends object, TValue>(): WeakMap<TKey, TValue> {
  return new WeakMapCtor<TKey, TValue>();
}

export function slice(text: string, start: number, end?: number): string {
  return sliceText(text, start, end);
}

export function indexOf(text: string, search: string, from: number): number {
  return indexOfText(text, search, from);
}

export function repeat(text: string, count: number): string {
  return call(stringRepeat, text, [count]);
}

export function trim(text: string): string {
  return call(stringTrim, text, []);
}

export function isWellFormed(text: string): boolean {
  return call(stringIsWellFormed, text, []);
}

/** Whether `pattern` matches `text` (the captured `exec`, so guest changes to RegExp do not apply). */
export function matches(pattern: RegExp, text: string): boolean {
  return execPattern(pattern, text) !== null;
}
