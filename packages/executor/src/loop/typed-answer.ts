import { checkAnswer } from '../output/check-answer.js';
import type { OutputSpec } from '../output/output-spec.js';
import type { TurnAnswer } from './final-answer.js';

/**
 * A turn's answer under the run's output schema: an answer that matches becomes its JSON text;
 * one that does not is no answer, with a note saying where and why it failed. Without a schema
 * the answer is unchanged.
 */
export function typedAnswer(output: OutputSpec | undefined, verdict: TurnAnswer): TurnAnswer {
  if (output === undefined || verdict.kind !== 'answer') return verdict;
  const checked = checkAnswer({ text: verdict.answer, value: verdict.value }, output);
  if (!checked.ok) return { kind: 'none', note: checked.note, mismatch: checked.mismatch };
  return { kind: 'answer', answer: checked.json, source: verdict.source };
}
