import {
  DEFAULT_BLOCK_TIMEOUT_MS,
  DEFAULT_CAPTURE_CHARS,
  DEFAULT_CPU_SLICE_MS,
  DEFAULT_MAX_ANSWER_CHARS,
  DEFAULT_MEMORY_BYTES,
  type JsonValue,
  jsonValueSchema,
} from '@rlm/protocol';

// The REPL limits' defaults are the run contract's, defined once in @rlm/protocol (both REPLs
// share them); re-exported so this package's users keep finding them here.
export {
  DEFAULT_BLOCK_TIMEOUT_MS,
  DEFAULT_CAPTURE_CHARS,
  DEFAULT_CPU_SLICE_MS,
  DEFAULT_MAX_ANSWER_CHARS,
  DEFAULT_MEMORY_BYTES,
};

import { z } from 'zod';

/** How long one context-helper scan (`grep`, `find_all`, `count`, …) may run before it is stopped. */
export const DEFAULT_SCAN_TIMEOUT_MS = 10_000;
/** The smallest memory an interpreter starts in (a loaded interpreter uses about 21 MiB). */
export const MIN_MEMORY_BYTES = 48 * 1024 * 1024;

const WASM_PAGE_BYTES = 64 * 1024;

/** Resource limits of one Python sandbox; the same fields as `@rlm/sandbox`'s limits. */
export const pythonSandboxLimitsSchema = z
  .object({
    /** @default DEFAULT_MEMORY_BYTES (rounded up to whole 64 KiB WASM pages) */
    memoryBytes: z
      .number()
      .int()
      .min(MIN_MEMORY_BYTES, 'memoryBytes must be at least 48 MiB for a Python interpreter')
      .max(4 * 1024 * 1024 * 1024 - WASM_PAGE_BYTES, 'memoryBytes must be below 4 GiB')
      .optional(),
    /** @default DEFAULT_CPU_SLICE_MS */
    cpuSliceMs: z.number().int().positive().optional(),
    /** @default DEFAULT_BLOCK_TIMEOUT_MS */
    blockTimeoutMs: z.number().int().positive().optional(),
    /** @default DEFAULT_CAPTURE_CHARS */
    maxOutputChars: z.number().int().positive().optional(),
    /** @default DEFAULT_MAX_ANSWER_CHARS */
    maxAnswerChars: z.number().int().positive().optional(),
    /** @default DEFAULT_SCAN_TIMEOUT_MS */
    scanTimeoutMs: z.number().int().positive().optional(),
    /**
     * Accepted so options written for `@rlm/sandbox` work unchanged; it has no effect here:
     * Python's recursion limit bounds recursion (a too-deep recursion raises `RecursionError`).
     */
    stackBytes: z.number().int().positive().optional(),
  })
  .strict();
/** Resource limits of one Python sandbox (see `pythonSandboxLimitsSchema`). */
export type PythonSandboxLimits = z.infer<typeof pythonSandboxLimitsSchema>;

/** Limits with every default applied (`stackBytes` is dropped: it does not apply to Python). */
export type ResolvedPythonLimits = Required<Omit<PythonSandboxLimits, 'stackBytes'>>;

/** What a host function receives besides its arguments. */
export interface HostFunctionCallOptions {
  /** Aborted when the block that made the call is stopped (limit, abort) or the sandbox is disposed. */
  signal: AbortSignal;
}

/** An async function the host exposes to Python as a blocking function. */
export interface HostFunction {
  /** One line for the prompt's environment section. */
  description: string;
  /** Receives JSON copies of Python's arguments; the result is copied back as JSON. */
  call: (args: JsonValue[], options: HostFunctionCallOptions) => Promise<JsonValue>;
}

const hostFunctionSchema = z.object({
  description: z.string(),
  call: z.custom<HostFunction['call']>((value) => typeof value === 'function', {
    message: 'expected a function (args, { signal }) => Promise<JsonValue>',
  }),
});

const PYTHON_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The options `createPythonSandbox` accepts: the same as `@rlm/sandbox`'s `createSandbox`. */
export const pythonSandboxOptionsSchema = z
  .object({
    /** One payload, bound to `context` (and `context_0`). */
    context: jsonValueSchema.optional(),
    /** Several payloads, bound to `context_0 … context_N`; `context` aliases `context_0`. */
    contexts: z.array(jsonValueSchema).optional(),
    /** Async host functions exposed to Python as blocking functions (`llm_query`, tools, …). */
    functions: z
      .record(
        z.string().regex(PYTHON_IDENTIFIER, 'function names must be Python identifiers'),
        hostFunctionSchema,
      )
      .optional(),
    /** Exposed to Python as the read-only mapping `__rlm`. */
    meta: z.record(z.string(), jsonValueSchema).optional(),
    limits: pythonSandboxLimitsSchema.optional(),
    /** Aborting stops the running block and disposes the sandbox. */
    signal: z
      .custom<AbortSignal>((value) => value instanceof AbortSignal, {
        message: 'expected an AbortSignal',
      })
      .optional(),
    /**
     * Accepted so options written for `@rlm/sandbox` work unchanged: a Python interpreter always
     * runs in its own process (`isolation` of the sandbox is `'process'`).
     */
    isolation: z.enum(['worker', 'inline']).optional(),
    /**
     * Define the host-side context helpers (`grep`, `find_all`, `count`, `lines`, `chunk`).
     * @default true
     */
    contextHelpers: z.boolean().optional(),
  })
  .strict()
  .refine((value) => value.context === undefined || value.contexts === undefined, {
    message: 'give either context or contexts, not both',
    path: ['contexts'],
  });

/** Options of `createPythonSandbox`. */
export type PythonSandboxOptions = z.input<typeof pythonSandboxOptionsSchema>;

/** Applies the defaults to `limits`. */
export function resolvePythonLimits(limits: PythonSandboxLimits | undefined): ResolvedPythonLimits {
  const memoryBytes = limits?.memoryBytes ?? DEFAULT_MEMORY_BYTES;
  return {
    memoryBytes: Math.ceil(memoryBytes / WASM_PAGE_BYTES) * WASM_PAGE_BYTES,
    cpuSliceMs: limits?.cpuSliceMs ?? DEFAULT_CPU_SLICE_MS,
    blockTimeoutMs: limits?.blockTimeoutMs ?? DEFAULT_BLOCK_TIMEOUT_MS,
    maxOutputChars: limits?.maxOutputChars ?? DEFAULT_CAPTURE_CHARS,
    maxAnswerChars: limits?.maxAnswerChars ?? DEFAULT_MAX_ANSWER_CHARS,
    scanTimeoutMs: limits?.scanTimeoutMs ?? DEFAULT_SCAN_TIMEOUT_MS,
  };
}
