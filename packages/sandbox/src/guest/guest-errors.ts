import { formatArgs } from './inspect-value.js';
import { jsonText } from './json-text.js';
import {
  call,
  defineHidden,
  ErrorCtor,
  newWeakMap,
  record,
  slice,
  weakMapGet,
  weakMapSet,
} from './primordials.js';
import { type CutText, limits } from './scaffold-settings.js';

/**
 * Errors the scaffold raises in the guest carry a stable code (`sandbox.too_large`, a helper's
 * `sandbox.pattern_timeout`, …). The code is kept here, keyed by the error object, so guest code
 * cannot forge one by setting a `code` property on its own errors; it also sees it as `error.code`.
 */
const codes = newWeakMap<object, string>();

/** A guest error with `name`, `message` and (optionally) a code the host can trust. */
export function codedError(name: string, message: string, code: string | undefined): Error {
  const error = new ErrorCtor(message);
  defineHidden(error, 'name', name);
  if (code !== undefined) {
    defineHidden(error, 'code', code);
    call(weakMapSet, codes, [error, code]);
  }
  return error;
}

function codeOf(value: unknown): string | undefined {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) {
    return undefined;
  }
  return call<string | undefined>(weakMapGet, codes, [value]);
}

/** Cuts `text` to `max` characters, saying how many were left out. */
export function cutText(text: string, max: number): CutText {
  const cut = record<CutText>();
  cut.text = text.length > max ? slice(text, 0, max) : text;
  cut.dropped = text.length > max ? text.length - max : 0;
  return cut;
}

/** A thrown value as the host reads it, every text already cut to its cap. */
export interface DescribedError {
  name: CutText;
  message: CutText;
  stack: CutText;
  lineNumber: number | null;
  code: string | null;
}

function readText(read: () => unknown): unknown {
  try {
    return read();
  } catch {
    return undefined;
  }
}

interface ErrorFields {
  name: string;
  message: string;
  stack: string;
  lineNumber: number | null;
}

/** Reads an object's error fields; any getter or trap that throws yields a default. */
function readFields(error: object): ErrorFields {
  const fields = error as {
    name?: unknown;
    message?: unknown;
    stack?: unknown;
    lineNumber?: unknown;
  };
  const name = readText(() => fields.name);
  const message = readText(() => fields.message);
  const stack = readText(() => fields.stack);
  const lineNumber = readText(() => fields.lineNumber);
  const shown = typeof message === 'string' ? message : readText(() => formatArgs([error]));
  return {
    name: typeof name === 'string' && name ? name : 'Error',
    message: typeof shown === 'string' ? shown : 'unprintable error',
    stack: typeof stack === 'string' ? stack : '',
    lineNumber: typeof lineNumber === 'number' ? lineNumber : null,
  };
}

/**
 * Describes a thrown value. Reading `name`, `message` and `stack` runs whatever getters or traps
 * the value has: the host calls this inside the block, under its CPU budget and abort.
 */
export function describeError(error: unknown): string {
  const fields =
    error !== null && (typeof error === 'object' || typeof error === 'function')
      ? readFields(error)
      : { name: 'Uncaught', message: formatArgs([error]), stack: '', lineNumber: null };
  const described = record<DescribedError>();
  described.name = cutText(fields.name, limits.maxErrorNameChars);
  described.message = cutText(fields.message, limits.maxOutputChars);
  described.stack = cutText(fields.stack, limits.maxOutputChars);
  described.lineNumber = fields.lineNumber;
  described.code = codeOf(error) ?? null;
  return jsonText(described);
}
