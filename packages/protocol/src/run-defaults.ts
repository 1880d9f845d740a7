// zod-free on purpose: `@rlm/protocol/core` re-exports these for callers that must load fast
// (a sandbox worker, `rlm --help`). Every door and package reads its defaults from here.

/** Depth at which calls become plain one-shot calls; 1 means the root has a REPL and no child does. */
export const DEFAULT_MAX_DEPTH = 1;
/** Root iterations (model turns) before the run is asked for its answer. */
export const DEFAULT_MAX_ITERATIONS = 30;
/** Iterations in a row whose code failed before the run stops. */
export const DEFAULT_MAX_CONSECUTIVE_ERRORS = 5;
/** Wall-clock limit of one code block, sub-calls included. */
export const DEFAULT_BLOCK_TIMEOUT_MS = 300_000;
/**
 * The effort levels an Anthropic model accepts (`output_config.effort`), lowest first: one list
 * for the client's schema, the run contract and every app's configuration.
 */
export const ANTHROPIC_EFFORTS = ['low', 'medium', 'high', 'xhigh', 'max'] as const;
