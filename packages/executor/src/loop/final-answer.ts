import {
  type CodeBlock,
  type FinalMarker,
  type JsonValue,
  parseFinalMarker,
  type ReplEnvironment,
  RlmError,
} from '@rlm/protocol';
import { DEFAULT_MAX_ANSWER_CHARS } from '@rlm/sandbox';
import {
  missingVariableNote,
  tooLargeVariableNote,
  undefinedVariableNote,
  unreadableVariableNote,
} from './turn-notes.js';

/**
 * The answer a turn produced, or a note telling the model why its marker was not an answer.
 * `value` is the variable's own value for a `FINAL_VAR` in the text (typed answers check it as
 * it is, not its JSON text).
 */
export type TurnAnswer =
  | {
      kind: 'answer';
      answer: string;
      value?: JsonValue | undefined;
      source: 'code' | 'text' | 'set_answer';
    }
  | {
      kind: 'none';
      note?: string;
      /** Set when the output schema refused the answer: where and why, for people. */
      mismatch?: string;
    };

function stringify(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Reads the variable a `FINAL_VAR` in the text names, capped like an answer given with FINAL in
 * code so a huge variable never leaves the sandbox. A read the sandbox refused or stopped (too
 * large, a trap that loops, a reset) is a note for the model; the run goes on.
 */
async function readAnswerVariable(
  sandbox: ReplEnvironment,
  name: string,
): Promise<{ value: JsonValue | undefined } | { note: string }> {
  try {
    const options = { maxChars: DEFAULT_MAX_ANSWER_CHARS };
    return { value: name === '' ? undefined : await sandbox.getVariable(name, options) };
  } catch (error) {
    if (RlmError.is(error, 'sandbox.too_large')) {
      return { note: tooLargeVariableNote(name, DEFAULT_MAX_ANSWER_CHARS) };
    }
    if (
      RlmError.is(error) &&
      error.code.startsWith('sandbox.') &&
      error.code !== 'sandbox.disposed'
    ) {
      return { note: unreadableVariableNote(name, error.message) };
    }
    throw error;
  }
}

/**
 * `parseFinalMarker(response)`, skipped for the usual turn whose text names no marker: both
 * `FINAL(` and `FINAL_VAR(` start with `FINAL`, and hiding fenced code or normalizing line breaks
 * can only remove text, so without `FINAL` anywhere the parse finds nothing. One native search
 * instead of a copy of the text with its fenced code blanked out, every turn.
 */
export function markerIn(response: string): FinalMarker | null {
  return response.includes('FINAL') ? parseFinalMarker(response) : null;
}

/**
 * Finds a turn's final answer: a `FINAL`/`FINAL_VAR` executed in code wins (the first block that
 * set one); otherwise the text markers, with `FINAL_VAR` resolved from the sandbox. A variable
 * that is missing, empty, holds `undefined`, is too large or cannot be read is not an answer; the
 * returned note says why and lists the variables that do exist.
 */
export async function turnAnswer(
  response: string,
  { blocks, sandbox }: { blocks: readonly CodeBlock[]; sandbox: ReplEnvironment },
): Promise<TurnAnswer> {
  const fromCode = blocks.find((block) => block.result.finalAnswer !== null)?.result.finalAnswer;
  if (fromCode !== undefined && fromCode !== null) {
    return { kind: 'answer', answer: fromCode, source: 'code' };
  }
  const marker = markerIn(response);
  if (marker === null) return { kind: 'none' };
  if (marker.kind === 'final') return { kind: 'answer', answer: marker.value, source: 'text' };
  const name = marker.varName;
  const read = await readAnswerVariable(sandbox, name);
  if ('note' in read) return { kind: 'none', note: read.note };
  const value = read.value;
  // A JSON-safe copy turns `undefined` into null: only the variable's type tells them apart.
  const variables = value === undefined || value === null ? await sandbox.listVariables() : [];
  const holdsUndefined =
    value === null &&
    variables.some((variable) => variable.name === name && variable.type === 'undefined');
  if (value !== undefined && !holdsUndefined && stringify(value) !== '') {
    return { kind: 'answer', answer: stringify(value), value, source: 'text' };
  }
  const names = (variables.length > 0 ? variables : await sandbox.listVariables()).map(
    (variable) => variable.name,
  );
  return {
    kind: 'none',
    note: holdsUndefined ? undefinedVariableNote(name) : missingVariableNote(name, names),
  };
}
