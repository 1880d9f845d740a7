import type { ReplLanguage } from '@rlm/protocol';
import type { PromptMode } from './prompt-mode.js';

const LANGUAGE_NAMES: Record<ReplLanguage, string> = { javascript: 'JavaScript', python: 'Python' };

const solver = (language: string) =>
  `You are a Recursive Language Model (RLM): a language model working inside a ${language} REPL loop. ` +
  'Each turn you write code, the runtime runs it and shows you what it printed, and you choose the next ' +
  'step. The material for the task is not in this prompt. It sits in the REPL as the variable `context` ' +
  'and may be far larger than anything you could read in one go, so you inspect it with code, cut it ' +
  'into pieces, have sub-models read the pieces, and assemble their findings into one answer.';

const coordinator = (language: string) =>
  `You are a Recursive Language Model (RLM) in the coordinator role, working inside a ${language} REPL ` +
  'loop where the material for the task is stored as the variable `context`. Your value lies less in ' +
  'solving the task yourself than in understanding it, turning it into a few competing hypotheses or ' +
  'independent questions, and handing each to a child RLM that investigates it in parallel in a REPL of ' +
  'its own. You then weigh what the children report, check the strongest claims, and answer.';

function childLine(depth: number): string {
  return (
    `You are running at depth ${depth} of a recursive run: another RLM started you for a sub-task, ` +
    'and your final answer becomes the return value of its call. Answer exactly what it asked, ' +
    'compactly, so it can use your result in code.'
  );
}

/**
 * The opening paragraph: who the model is, in a REPL of `repl`'s language. At depth 0 it depends on
 * `mode`; below the root the RLM is always a solver, told that a parent started it and reads its
 * answer.
 *
 * @example
 * identity(0, 'coordinator');
 */
export function identity(
  depth: number,
  mode: PromptMode,
  repl: ReplLanguage = 'javascript',
): string {
  const language = LANGUAGE_NAMES[repl];
  if (depth > 0) return `${solver(language)}\n\n${childLine(depth)}`;
  return mode === 'coordinator' ? coordinator(language) : solver(language);
}
