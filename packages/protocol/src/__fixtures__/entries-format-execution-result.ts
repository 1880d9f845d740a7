import { unawaitedCallsNote } from '../format-execution-result.js';
import type { REPLResult } from '../repl-result.js';
import { isReservedName } from '../reserved-names.js';

const LISTED_TYPES = new Set(['string', 'number', 'boolean', 'bigint', 'array', 'object', 'null']);

/**
 * The oracle for `formatExecutionResult`: its earlier, straightforward form (a regex for the
 * trailing newline, entry arrays filtered and mapped), kept to check the rewrite gives the same text.
 */
export function entriesFormatExecutionResult(result: REPLResult): string {
  const parts: string[] = [];
  if (result.stdout !== '') parts.push(result.stdout.replace(/\n$/, ''));
  if (result.stderr !== '') parts.push(result.stderr.replace(/\n$/, ''));
  const unawaited = entriesUnawaitedCallsNote(result.unawaitedCalls ?? {});
  if (unawaited !== null) parts.push(unawaited);
  const names = Object.entries(result.locals)
    .filter(
      ([name, type]) => !name.startsWith('_') && !isReservedName(name) && LISTED_TYPES.has(type),
    )
    .map(([name]) => name);
  if (names.length > 0) parts.push(`REPL variables: ${names.join(', ')}`);
  return parts.length > 0 ? parts.join('\n') : 'No output';
}

/** The earlier `unawaitedCallsNote`: no early return, the note from the filtered entries. */
function entriesUnawaitedCallsNote(calls: Readonly<Record<string, number>>): string | null {
  const entries = Object.entries(calls).filter(([, count]) => count > 0);
  if (entries.length === 0) return null;
  // The wording itself is unchanged: the rewritten function builds it from the same entries.
  return unawaitedCallsNote(Object.fromEntries(entries));
}
