/** @packageDocumentation An isolated, persistent, async QuickJS-WASM REPL for model-written code. */

// ── Creating a sandbox ──────────────────

export { createSandbox } from './create-sandbox.js';
export type { GetVariableOptions, Sandbox, SandboxIsolation } from './sandbox.js';

// ── Options and limits ──────────────────

export {
  DEFAULT_BLOCK_TIMEOUT_MS,
  DEFAULT_CAPTURE_CHARS,
  DEFAULT_CPU_SLICE_MS,
  DEFAULT_INLINE_STACK_BYTES,
  DEFAULT_MAX_ANSWER_CHARS,
  DEFAULT_MAX_HOST_CALL_CHARS,
  DEFAULT_MEMORY_BYTES,
  DEFAULT_NATIVE_STRING_MIN_CHARS,
  DEFAULT_SCAN_TIMEOUT_MS,
  DEFAULT_STACK_BYTES,
  type HostFunction,
  type HostFunctionCallOptions,
  type ResolvedLimits,
  resolveLimits,
  type SandboxLimits,
  type SandboxOptions,
  sandboxLimitsSchema,
  sandboxOptionsSchema,
} from './sandbox-options.js';

// ── Context helpers ─────────────────────

export { CONTEXT_HELPERS_PROMPT } from './context-ops/context-helpers-prompt.js';
export {
  CONTEXT_HELPER_NAMES,
  DECODE_AHEAD_MAX_CHARS,
  PRESTART_SCAN_WORKER_MIN_CHARS,
} from './context-ops/context-scanner.js';
export type {
  ChunkBounds,
  FindAllMatch,
  FindAllResult,
  GrepLine,
  GrepResult,
} from './context-ops/scan-operations.js';
