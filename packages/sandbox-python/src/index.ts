/**
 * @packageDocumentation A persistent Python REPL for model-written code: Pyodide (CPython in
 * WebAssembly) in a permission-restricted child process, implementing `ReplEnvironment`.
 */

// ── Creating a sandbox ──────────────────

export {
  closePythonPool,
  createPythonSandbox,
  type PrewarmOptions,
  prewarmPythonSandboxes,
} from './create-python-sandbox.js';
export type { PythonSandbox } from './python-sandbox.js';

// ── Options and limits ──────────────────

export {
  DEFAULT_BLOCK_TIMEOUT_MS,
  DEFAULT_CAPTURE_CHARS,
  DEFAULT_CPU_SLICE_MS,
  DEFAULT_MAX_ANSWER_CHARS,
  DEFAULT_MEMORY_BYTES,
  DEFAULT_SCAN_TIMEOUT_MS,
  type HostFunction,
  type HostFunctionCallOptions,
  MIN_MEMORY_BYTES,
  type PythonSandboxLimits,
  type PythonSandboxOptions,
  pythonSandboxLimitsSchema,
  pythonSandboxOptionsSchema,
  type ResolvedPythonLimits,
  resolvePythonLimits,
} from './sandbox-options.js';

// ── Context helpers ─────────────────────

export {
  type ChunkBounds,
  CONTEXT_HELPER_NAMES,
  type FindAllMatch,
  type FindAllResult,
  type GrepLine,
  type GrepResult,
} from '@rlm/sandbox/context-ops';
