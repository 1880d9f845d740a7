import type { REPLResult } from './repl-result.js';
import { isReservedName } from './reserved-names.js';

/** Variable types worth listing to the model (values, not functions or classes). */
const LISTED_TYPES = new Set(['string', 'number', 'boolean', 'bigint', 'array', 'object', 'null']);

/**
 * Renders one block's result as the model sees it: stdout, then stderr, then a note on host
 * calls the block never awaited, then the names of the user's value variables; `No output`
 * when there is nothing at all.
 *
 * Runs once per block of every turn: written as plain loops over the result (no regex, no
 * entry arrays), since the loop's other work between two blocks pushes the engine's code out
 * of the caches and every small allocation there shows in a trivial turn.
 */
export function formatExecutionResult(result: REPLResult): string {
  const parts: string[] = [];
  if (result.stdout !== '') parts.push(withoutFinalNewline(result.stdout));
  if (result.stderr !== '') parts.push(withoutFinalNewline(result.stderr));
  const unawaited = unawaitedCallsNote(result.unawaitedCalls ?? {});
  if (unawaited !== null) parts.push(unawaited);
  const names = listedNames(result.locals);
  if (names !== undefined) parts.push(`REPL variables: ${names}`);
  return parts.length > 0 ? parts.join('\n') : 'No output';
}

/** `text` without one trailing LF (a CR before it stays). */
function withoutFinalNewline(text: string): string {
  return text.endsWith('\n') ? text.slice(0, -1) : text;
}

/** The user's value variables, comma-separated in the order of `locals`; `undefined` for none. */
function listedNames(locals: Readonly<Record<string, string>>): string | undefined {
  let names: string | undefined;
  for (const name of Object.keys(locals)) {
    if (name.startsWith('_') || !LISTED_TYPES.has(locals[name] as string) || isReservedName(name)) {
      continue;
    }
    names = names === undefined ? name : `${names}, ${name}`;
  }
  return names;
}

/**
 * What the model is told about calls its block started but never awaited, e.g. `Warning: 3 calls
 * to llm_query were never awaited; they were cancelled when the block ended and their results are
 * lost. Await every call (await Promise.all([...])) before the block ends.`
 */
export function unawaitedCallsNote(calls: Readonly<Record<string, number>>): string | null {
  // Nearly every block awaits all its calls: an empty record costs no entry arrays.
  if (!hasPositiveCount(calls)) return null;
  const entries = Object.entries(calls).filter(([, count]) => count > 0);
  const total = entries.reduce((sum, [, count]) => sum + count, 0);
  const which = entries
    .map(([name, count]) => `${count} ${count === 1 ? 'call' : 'calls'} to ${name}`)
    .join(', ');
  const verb = total === 1 ? 'was' : 'were';
  const pronoun = total === 1 ? 'it was' : 'they were';
  const results = total === 1 ? 'its result is' : 'their results are';
  return (
    `Warning: ${which} ${verb} never awaited; ${pronoun} cancelled when the block ended and ` +
    `${results} lost. Await every call (for example \`await Promise.all([...])\`) before the block ends.`
  );
}

function hasPositiveCount(calls: Readonly<Record<string, number>>): boolean {
  for (const name of Object.keys(calls)) if ((calls[name] as number) > 0) return true;
  return false;
}
