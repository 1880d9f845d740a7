import { codedError } from './guest-errors.js';
import { globalSlot, isBaseline, isScaffold, userNames } from './guest-variables.js';
import { toJsonText } from './json-copy.js';
import {
  append,
  call,
  joinList,
  list,
  matches,
  record,
  StringCtor,
  slice,
  symbolToString,
  trim,
} from './primordials.js';
import { limits } from './scaffold-settings.js';
import { typeName } from './type-name.js';

/** The block's final answer: the first `FINAL`/`FINAL_VAR` call of the block wins. */
export const finalState = record<{ answer: string | null }>();
finalState.answer = null;

const NUMBERED_PAYLOAD = /^(context|history)_\d+$/;

/** `size` is exact, or (`atLeast`) where counting stopped once the answer was too large. */
function answerTooLarge(size: number, atLeast: boolean): Error {
  return codedError(
    'RangeError',
    'FINAL: the answer has ' +
      (atLeast ? 'at least ' : '') +
      size +
      ' characters, more than the ' +
      limits.maxAnswerChars +
      ' allowed (maxAnswerChars), so it was not accepted. Give a shorter answer: a summary, or only the part the question asks for.',
    'sandbox.too_large',
  );
}

/** The answer's text: strings as they are, objects as JSON, other values as `String()` gives. */
function answerText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return 'undefined';
  if (typeof value === 'symbol') return call(symbolToString, value, []);
  if (typeof value !== 'object' || value === null) return StringCtor(value);
  const text = toJsonText(value, limits.maxAnswerChars);
  if (typeof text !== 'string') throw answerTooLarge(text.size, true);
  return text;
}

/** `FINAL(value)`: sets the block's answer (unless an earlier call did) and returns its text. */
export function FINAL(value: unknown): string {
  const answer = answerText(value);
  if (answer.length > limits.maxAnswerChars) throw answerTooLarge(answer.length, false);
  if (finalState.answer === null) finalState.answer = answer;
  return answer;
}

function availableVariables(): string {
  const names = userNames();
  return names.length === 0
    ? 'No variables have been created yet.'
    : 'Available variables: ' + joinList(names, ', ');
}

/** A name as a model may write it: spaces around it and one pair of quotes are ignored. */
function variableKey(name: string): string {
  const key = trim(name);
  const first = key[0];
  if (key.length >= 2 && (first === '"' || first === "'") && key[key.length - 1] === first) {
    return slice(key, 1, key.length - 1);
  }
  return key;
}

/**
 * `FINAL_VAR(name)`: answers with a variable; a missing one, or one that holds `undefined`, gives
 * an error string and sets nothing.
 */
export function FINAL_VAR(name: unknown): string {
  if (typeof name !== 'string') return FINAL(name);
  const key = variableKey(name);
  const slot = globalSlot(key);
  const visible =
    slot.found &&
    !slot.accessor &&
    !isBaseline(key) &&
    (!isScaffold(key) || key === 'context' || key === 'history' || matches(NUMBERED_PAYLOAD, key));
  if (!visible) return "Error: Variable '" + key + "' not found. " + availableVariables();
  // undefined is never an answer (a block that stopped before assigning leaves it so).
  if (slot.value === undefined) {
    return (
      "Error: Variable '" +
      key +
      "' holds undefined, which is not an answer. Assign it a value first."
    );
  }
  return FINAL(slot.value);
}

/** `SHOW_VARS()`: the user variables and their types. */
export function SHOW_VARS(): string {
  const names = userNames();
  if (names.length === 0) return 'No variables have been created yet.';
  const parts = list<string>();
  for (let index = 0; index < names.length; index++) {
    const name = names[index] as string;
    const slot = globalSlot(name);
    append(parts, name + ' (' + (slot.accessor ? 'accessor' : typeName(slot.value)) + ')');
  }
  return 'Variables: ' + joinList(parts, ', ');
}

/** The block's answer, and forgets it for the next block. */
export function takeFinal(): string | null {
  const answer = finalState.answer;
  finalState.answer = null;
  return answer;
}
