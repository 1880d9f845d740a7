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

/**
 * Characters of JSON one host call may carry each way (the guest's arguments, the host's result);
 * a larger one rejects the guest's promise with a `RangeError` (code `sandbox.too_large`).
 */
export const DEFAULT_MAX_HOST_CALL_CHARS = 64 * 1024 * 1024;
/** How long one context-helper scan (`grep`, `find_all`, `count`, …) may run before it is stopped. */
export const DEFAULT_SCAN_TIMEOUT_MS = 10_000;
/**
 * Strings at least this long (UTF-16 code units) that the host holds (the context) have
 * `indexOf`, `lastIndexOf`, `includes`, `RegExp.prototype.exec` (and so `test`, `search`,
 * `match`, `matchAll`, `replace` through it) and a global `match` done by the host's engine.
 */
export const DEFAULT_NATIVE_STRING_MIN_CHARS = 65_536;
/** QuickJS stack limit in a worker thread (which gets a 32 MiB native stack). */
export const DEFAULT_STACK_BYTES = 1024 * 1024;
/**
 * QuickJS stack limit with `isolation: 'inline'`. The main thread's native stack is small (~1 MiB)
 * and WASM frames live on it, so a larger limit lets deep recursion overflow V8 instead of QuickJS.
 */
export const DEFAULT_INLINE_STACK_BYTES = 128 * 1024;

const WASM_PAGE_BYTES = 64 * 1024;

/** Resource limits of one sandbox. Every field is optional; defaults are the `DEFAULT_*` constants. */
export const sandboxLimitsSchema = z
  .object({
    /** @default DEFAULT_MEMORY_BYTES (rounded up to whole 64 KiB WASM pages) */
    memoryBytes: z
      .number()
      .int()
      .min(16 * 1024 * 1024, 'memoryBytes must be at least 16 MiB')
      .max(4 * 1024 * 1024 * 1024 - WASM_PAGE_BYTES, 'memoryBytes must be below 4 GiB')
      .optional(),
    /**
     * Strings the host holds that are at least this long have their searches done by the host
     * (see the README's "Native string methods"); 2^30 or more turns that off.
     * @default DEFAULT_NATIVE_STRING_MIN_CHARS
     */
    nativeStringMinChars: z.number().int().min(0).optional(),
    /** @default DEFAULT_CPU_SLICE_MS */
    cpuSliceMs: z.number().int().positive().optional(),
    /** @default DEFAULT_BLOCK_TIMEOUT_MS */
    blockTimeoutMs: z.number().int().positive().optional(),
    /** @default DEFAULT_CAPTURE_CHARS */
    maxOutputChars: z.number().int().positive().optional(),
    /** @default DEFAULT_MAX_ANSWER_CHARS */
    maxAnswerChars: z.number().int().positive().optional(),
    /** @default DEFAULT_MAX_HOST_CALL_CHARS */
    maxHostCallChars: z.number().int().positive().optional(),
    /** @default DEFAULT_SCAN_TIMEOUT_MS */
    scanTimeoutMs: z.number().int().positive().optional(),
    /** @default DEFAULT_STACK_BYTES, or DEFAULT_INLINE_STACK_BYTES with `isolation: 'inline'` */
    // The WASM build's own C stack is about 5 MiB; QuickJS fails to start with a larger limit.
    stackBytes: z
      .number()
      .int()
      .min(16 * 1024)
      .max(4 * 1024 * 1024, 'stackBytes must be at most 4 MiB')
      .optional(),
  })
  .strict();
/** Resource limits of one sandbox (see `sandboxLimitsSchema`). */
export type SandboxLimits = z.infer<typeof sandboxLimitsSchema>;

/** Limits with every default applied. */
export type ResolvedLimits = Required<SandboxLimits>;

/** What a host function receives besides its arguments. */
export interface HostFunctionCallOptions {
  /** Aborted when the block that made the call ends (finished, timed out, aborted) or the sandbox is disposed. */
  signal: AbortSignal;
}

/** An async function the host exposes to guest code as a global that returns a promise. */
export interface HostFunction {
  /** One line for the prompt's environment section. */
  description: string;
  /** Receives JSON copies of the guest's arguments; the result is copied back as JSON. */
  call: (args: JsonValue[], options: HostFunctionCallOptions) => Promise<JsonValue>;
}

const hostFunctionSchema = z.object({
  description: z.string(),
  call: z.custom<HostFunction['call']>((value) => typeof value === 'function', {
    message: 'expected a function (args, { signal }) => Promise<JsonValue>',
  }),
});

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

const metaSchema = z.record(z.string(), jsonValueSchema);

/** The options `createSandbox` accepts (validated; unknown fields are rejected). */
export const sandboxOptionsSchema = z
  .object({
    /** One payload, bound to `context` (and `context_0`). */
    context: jsonValueSchema.optional(),
    /** Several payloads, bound to `context_0 … context_N`; `context` aliases `context_0`. */
    contexts: z.array(jsonValueSchema).optional(),
    /** Async host functions exposed as globals (`llm_query`, `rlm_query`, user tools, …). */
    functions: z
      .record(
        z.string().regex(IDENTIFIER, 'function names must be JavaScript identifiers'),
        hostFunctionSchema,
      )
      .optional(),
    /** Exposed to guest code as the deeply frozen `__rlm`. */
    meta: metaSchema.optional(),
    limits: sandboxLimitsSchema.optional(),
    /** Aborting stops the running block and disposes the sandbox. */
    signal: z
      .custom<AbortSignal>((value) => value instanceof AbortSignal, {
        message: 'expected an AbortSignal',
      })
      .optional(),
    /**
     * `worker` runs the engine in a worker_thread so CPU-bound guest code never blocks the host's
     * event loop; `inline` runs it on the calling thread (tests, tiny uses).
     * @default 'worker'
     */
    isolation: z.enum(['worker', 'inline']).optional(),
    /**
     * Define the host-side context helpers (`grep`, `find_all`, `count`, `lines`, `chunk`). Off
     * gives the bare REPL of the reference engine (ablations, or a prompt that documents no helpers).
     * @default true
     */
    contextHelpers: z.boolean().optional(),
  })
  .strict()
  .refine((value) => value.context === undefined || value.contexts === undefined, {
    message: 'give either context or contexts, not both',
    path: ['contexts'],
  });

/** Options of `createSandbox`. */
export type SandboxOptions = z.input<typeof sandboxOptionsSchema>;

/** Applies the defaults to `limits`. */
export function resolveLimits(
  limits: SandboxLimits | undefined,
  isolation: 'worker' | 'inline',
): ResolvedLimits {
  const memoryBytes = limits?.memoryBytes ?? DEFAULT_MEMORY_BYTES;
  return {
    memoryBytes: Math.ceil(memoryBytes / WASM_PAGE_BYTES) * WASM_PAGE_BYTES,
    cpuSliceMs: limits?.cpuSliceMs ?? DEFAULT_CPU_SLICE_MS,
    blockTimeoutMs: limits?.blockTimeoutMs ?? DEFAULT_BLOCK_TIMEOUT_MS,
    maxOutputChars: limits?.maxOutputChars ?? DEFAULT_CAPTURE_CHARS,
    maxAnswerChars: limits?.maxAnswerChars ?? DEFAULT_MAX_ANSWER_CHARS,
    maxHostCallChars: limits?.maxHostCallChars ?? DEFAULT_MAX_HOST_CALL_CHARS,
    scanTimeoutMs: limits?.scanTimeoutMs ?? DEFAULT_SCAN_TIMEOUT_MS,
    nativeStringMinChars: limits?.nativeStringMinChars ?? DEFAULT_NATIVE_STRING_MIN_CHARS,
    stackBytes:
      limits?.stackBytes ??
      (isolation === 'inline' ? DEFAULT_INLINE_STACK_BYTES : DEFAULT_STACK_BYTES),
  };
}
