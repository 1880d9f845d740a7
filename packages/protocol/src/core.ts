/**
 * @packageDocumentation The zod-free core of the protocol: `RlmError` and its code registry, the
 * reserved scaffold names and output truncation. The main entry re-exports the same modules, so
 * values (the `RlmError` class above all) are identical through either path.
 *
 * It exists for threads that must start fast: importing the main entry loads zod, which costs a
 * fresh worker_thread 100–300 ms on a loaded machine. A sandbox worker imports only this entry.
 * Nothing reachable from here may import zod (@rlm/sandbox's `sandbox-worker.test.ts` checks it).
 */

// ── Errors ──────────────────────────────

export { definedEntries } from './defined-entries.js';
export { errorInfo } from './error-info.js';
export { ERROR_KIND_BY_CODE, ERROR_KINDS, type ErrorKind, errorKind } from './error-kind.js';
export { type ErrorCode, type ErrorDetails, RlmError, type RlmErrorOptions } from './rlm-error.js';

// ── Run defaults and statuses ───────────

export {
  ANTHROPIC_EFFORTS,
  DEFAULT_BLOCK_TIMEOUT_MS,
  DEFAULT_CAPTURE_CHARS,
  DEFAULT_CPU_SLICE_MS,
  DEFAULT_ESCALATE_AFTER_ERRORS,
  DEFAULT_MAX_ANSWER_CHARS,
  DEFAULT_MAX_CONSECUTIVE_ERRORS,
  DEFAULT_MAX_DEPTH,
  DEFAULT_MAX_ITERATIONS,
  DEFAULT_MEMORY_BYTES,
} from './run-defaults.js';
export {
  END_STATUSES,
  type EndStatus,
  isEndStatus,
  isResumableStatus,
  RESUMABLE_STATUSES,
  type ResumableStatus,
} from './run-status-lists.js';

// ── REPL ────────────────────────────────

export { isReservedName, RESERVED_NAMES } from './reserved-names.js';
export { DEFAULT_MAX_OUTPUT_CHARS, truncateOutput, truncationMarker } from './truncate-output.js';
