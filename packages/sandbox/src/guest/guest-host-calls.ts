import { hasBrand, regexpFlags } from './brand-checks.js';
import { codedError } from './guest-errors.js';
import {
  append,
  call,
  defineProperty,
  jsonStringify,
  list,
  PromiseCtor,
  promiseReject,
  RegExpPrototype,
  record,
  regexpSource,
} from './primordials.js';
import { limits } from './scaffold-settings.js';

/** The raw host call the engine provides: a promise settled by the host with the parsed result. */
export type HostCall = (name: string, argsJson: string) => Promise<unknown>;

function rejected(error: Error): Promise<never> {
  return call(promiseReject, PromiseCtor, [error]);
}

/**
 * Sends a call to the host. The arguments travel as JSON (serializing them runs the guest's own
 * `toJSON`s, inside the block that made the call); arguments larger than `maxHostCallChars`
 * reject the returned promise instead of leaving the sandbox.
 */
function callHost(hostCall: HostCall, name: string, args: unknown[]): Promise<unknown> {
  let json: string;
  try {
    json = jsonStringify(args);
  } catch {
    return rejected(
      codedError('TypeError', name + ': the arguments must be JSON-serializable', undefined),
    );
  }
  if (json.length > limits.maxHostCallChars) {
    return rejected(
      codedError(
        'RangeError',
        name +
          ': the arguments take ' +
          json.length +
          ' characters as JSON, more than the ' +
          limits.maxHostCallChars +
          ' a host call may carry (maxHostCallChars)',
        'sandbox.too_large',
      ),
    );
  }
  return hostCall(name, json);
}

function named<T extends object>(fn: T, name: string): T {
  const descriptor = record<PropertyDescriptor>();
  descriptor.value = name;
  descriptor.configurable = true;
  defineProperty(fn, 'name', descriptor);
  return fn;
}

/**
 * A host function as guest code sees it. Trailing `undefined` arguments are left out
 * (`f(x, undefined)` is `f(x)`); others become `null`.
 */
export function hostFunction(
  hostCall: HostCall,
  name: string,
): (...args: unknown[]) => Promise<unknown> {
  // A rest parameter is built by the engine, without the iterator protocol.
  return named((...given: unknown[]) => {
    let count = given.length;
    while (count > 0 && given[count - 1] === undefined) count--;
    const args = list<unknown>();
    for (let index = 0; index < count; index++) {
      const arg = given[index];
      append(args, arg === undefined ? null : arg);
    }
    return callHost(hostCall, name, args);
  }, name);
}

/** A context helper: like a host function, but a RegExp first argument travels as its parts. */
export function helperFunction(
  hostCall: HostCall,
  name: string,
): (...args: unknown[]) => Promise<unknown> {
  return named((...given: unknown[]) => {
    const args = list<unknown>();
    for (let index = 0; index < given.length; index++) {
      let arg: unknown = given[index];
      if (
        index === 0 &&
        arg !== null &&
        typeof arg === 'object' &&
        arg !== RegExpPrototype &&
        hasBrand(regexpSource, arg)
      ) {
        const parts = record<{ source: string; flags: string }>();
        parts.source = call(regexpSource, arg, []);
        parts.flags = regexpFlags(arg);
        arg = parts;
      }
      append(args, arg === undefined ? null : arg);
    }
    return callHost(hostCall, name, args);
  }, name);
}
