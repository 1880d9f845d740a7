/**
 * Names the sandbox defines for every run. They are restored after each block if model code
 * rebinds them, and are never listed as user variables.
 */
export const RESERVED_NAMES: readonly string[] = [
  'context',
  'history',
  'llm_query',
  'llm_query_batched',
  'rlm_query',
  'rlm_query_batched',
  'FINAL',
  'FINAL_VAR',
  'SHOW_VARS',
  'print',
  'console',
  '__rlm',
];

const NUMBERED = /^(context|history)_\d+$/;

/** True for a scaffold name: a reserved name or a numbered `context_N` / `history_N`. */
export function isReservedName(name: string): boolean {
  return RESERVED_NAMES.includes(name) || NUMBERED.test(name);
}
