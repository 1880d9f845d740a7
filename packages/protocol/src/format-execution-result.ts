import type { REPLResult } from './repl-result.js';
import { isReservedName } from './reserved-names.js';

/** Variable types worth listing to the model (values, not functions or classes). */
const LISTED_TYPES = new Set(['string', 'number', 'boolean', 'bigint', 'array', 'object', 'null']);

/**
 * Renders one block's result as the model sees it: stdout, then stderr, then a note on host
 * calls the block never awaited, then the names of the user's value variables; `No output`
 * when there is nothing at all.
 */
export function formatExecutionResult(result: REPLResult): string {
  const parts: string[] = [];
  if (result.stdout !== '') parts.push(result.stdout.replace(/\n$/, ''));
  if (result.stderr !== '') parts.push(result.stderr.replace(/\n$/, ''));
  const unawaited = unawaitedCallsNote(result.unawaitedCalls ?? {});
  if (unawaited !== null) parts.push(unawaited);
  const names = Object.entries(result.locals)
    .filter(
      ([name, type]) => !name.startsWith('_') && !isReservedName(name) && LISTED_TYPES.has(type),
    )
    .map(([name]) => name);
  if (names.length > 0) parts.push(`REPL variables: ${names.join(', ')}`);
  return parts.length > 0 ? parts.join('\n') : 'No output';
}

/**
 * What the model is told about calls its block started but never awaited, e.g. `Warning: 3 calls
 * to llm_query were never awaited; they were cancelled when the block ended and their results are
 * lost. Await every call (await Promise.all([...])) before the block ends.`
 */
export function unawaitedCallsNote(calls: Readonly<Record<string, number>>): string | null {
  const entries = Object.entries(calls).filter(([, count]) => count > 0);
  if (entries.length === 0) return null;
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
