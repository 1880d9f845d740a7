// Kept apart from rlm-config.ts (which loads zod) so `@rlm/executor/defaults` stays light.

/** @default 1 — the root has a REPL; `rlm_query` from the root is a plain sub-model call. */
export const DEFAULT_MAX_DEPTH = 1;
/** @default 30 */
export const DEFAULT_MAX_ITERATIONS = 30;
