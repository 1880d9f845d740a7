// zod-free on purpose: `@rlm/protocol/core` re-exports these for callers that must load fast
// (a sandbox worker, `rlm --help`). Every door and package reads its defaults from here.

/** Depth at which calls become plain one-shot calls; 1 means the root has a REPL and no child does. */
export const DEFAULT_MAX_DEPTH = 1;
/** Root iterations (model turns) before the run is asked for its answer. */
export const DEFAULT_MAX_ITERATIONS = 30;
/** Iterations in a row whose code failed before the run stops. */
export const DEFAULT_MAX_CONSECUTIVE_ERRORS = 5;
/**
 * With an escalation ladder: turns in a row whose code failed after which a child stops and runs
 * again on the next model up. Three, below the five that stop any run: one failed turn is often
 * a typo the model fixes, two a wrong guess about the data; a third in a row says the model is
 * stuck, and turns spent after that are paid for nothing before the stronger model gets a try.
 */
export const DEFAULT_ESCALATE_AFTER_ERRORS = 3;
/** Wall-clock limit of one code block, sub-calls included. */
export const DEFAULT_BLOCK_TIMEOUT_MS = 300_000;
/**
 * The effort levels an Anthropic model accepts (`output_config.effort`), lowest first: one list
 * for the client's schema, the run contract and every app's configuration.
 */
export const ANTHROPIC_EFFORTS = ['low', 'medium', 'high', 'xhigh', 'max'] as const;

// The REPLs' own limits: both sandboxes (QuickJS and Pyodide) take these defaults from here.

/** Size of a sandbox's fixed WebAssembly memory: the hard cap on everything guest code allocates. */
export const DEFAULT_MEMORY_BYTES = 512 * 1024 * 1024;
/** CPU time guest code may run per block (time spent awaiting host calls does not count). */
export const DEFAULT_CPU_SLICE_MS = 30_000;
/**
 * Characters a sandbox keeps per stream (stdout, stderr) per block, the rest cut with a marker.
 * The model is shown at most `DEFAULT_MAX_OUTPUT_CHARS` of them, cut again when formatted.
 */
export const DEFAULT_CAPTURE_CHARS = 100_000;
/** Characters a final answer (`FINAL`, `FINAL_VAR`) may have; a longer one is refused. */
export const DEFAULT_MAX_ANSWER_CHARS = 1_000_000;
