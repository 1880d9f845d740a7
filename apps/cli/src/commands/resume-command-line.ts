import { quoteArgument as quote } from './quote-argument.js';

/**
 * The exact command that continues run `runId`: its `--context` arguments as given (the contexts
 * are not stored), `--run-store` when the run used another store, and `flags` (the MCP servers,
 * which are not stored either). Everything else (model, limits, budgets) `rlm resume` reads from
 * the run's record.
 *
 * @example
 * resumeCommandLine({ runId: 'r1', contexts: ['notes.txt', 'my file.md'] });
 * // "rlm resume r1 -c notes.txt -c 'my file.md'"
 */
export function resumeCommandLine({
  runId,
  contexts,
  runStore,
  flags = [],
}: {
  runId: string;
  contexts: readonly string[];
  runStore?: string;
  flags?: readonly string[];
}): string {
  const parts = ['rlm', 'resume', quote(runId)];
  for (const context of contexts) parts.push('-c', quote(context));
  if (runStore !== undefined) parts.push('--run-store', quote(runStore));
  for (const flag of flags) parts.push(quote(flag));
  return parts.join(' ');
}
