import { type CodeBlock, parseFinalMarker, type ReplEnvironment } from '@rlm/protocol';
import { missingVariableNote } from './turn-notes.js';

/** The answer a turn produced, or a note telling the model why its marker was not an answer. */
export type TurnAnswer =
  | { kind: 'answer'; answer: string; source: 'code' | 'text' | 'set_answer' }
  | { kind: 'none'; note?: string };

function stringify(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Finds a turn's final answer: a `FINAL`/`FINAL_VAR` executed in code wins (the first block that
 * set one); otherwise the text markers, with `FINAL_VAR` resolved from the sandbox. A missing or
 * empty variable is not an answer; the returned note lists the variables that do exist.
 */
export async function turnAnswer(
  response: string,
  { blocks, sandbox }: { blocks: readonly CodeBlock[]; sandbox: ReplEnvironment },
): Promise<TurnAnswer> {
  const fromCode = blocks.find((block) => block.result.finalAnswer !== null)?.result.finalAnswer;
  if (fromCode !== undefined && fromCode !== null) {
    return { kind: 'answer', answer: fromCode, source: 'code' };
  }
  const marker = parseFinalMarker(response);
  if (marker === null) return { kind: 'none' };
  if (marker.kind === 'final') return { kind: 'answer', answer: marker.value, source: 'text' };
  const value = marker.varName === '' ? undefined : await sandbox.getVariable(marker.varName);
  if (value !== undefined && stringify(value) !== '') {
    return { kind: 'answer', answer: stringify(value), source: 'text' };
  }
  const names = (await sandbox.listVariables()).map((variable) => variable.name);
  return { kind: 'none', note: missingVariableNote(marker.varName, names) };
}
