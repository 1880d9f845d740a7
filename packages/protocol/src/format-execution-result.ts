import type { REPLResult } from './repl-result.js';
import { isReservedName } from './reserved-names.js';

/** Variable types worth listing to the model (values, not functions or classes). */
const LISTED_TYPES = new Set(['string', 'number', 'boolean', 'bigint', 'array', 'object', 'null']);

/**
 * Renders one block's result as the model sees it: stdout, then stderr, then the names of the
 * user's value variables; `No output` when there is nothing at all.
 */
export function formatExecutionResult(result: REPLResult): string {
  const parts: string[] = [];
  if (result.stdout !== '') parts.push(result.stdout.replace(/\n$/, ''));
  if (result.stderr !== '') parts.push(result.stderr.replace(/\n$/, ''));
  const names = Object.entries(result.locals)
    .filter(
      ([name, type]) => !name.startsWith('_') && !isReservedName(name) && LISTED_TYPES.has(type),
    )
    .map(([name]) => name);
  if (names.length > 0) parts.push(`REPL variables: ${names.join(', ')}`);
  return parts.length > 0 ? parts.join('\n') : 'No output';
}
