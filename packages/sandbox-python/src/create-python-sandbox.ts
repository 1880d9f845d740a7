import { type JsonValue, parseSchema, RlmError } from '@rlm/protocol';
import { CONTEXT_HELPER_NAMES } from '@rlm/sandbox/context-ops';
import { interpreterPool } from './host/interpreter-pool.js';
import { ProcessSandbox } from './process-sandbox.js';
import { assertFunctionNames } from './python-names.js';
import type { PythonSandbox } from './python-sandbox.js';
import {
  DEFAULT_MEMORY_BYTES,
  type HostFunction,
  MIN_MEMORY_BYTES,
  type PythonSandboxOptions,
  pythonSandboxOptionsSchema,
  resolvePythonLimits,
} from './sandbox-options.js';

/**
 * Creates a persistent Python REPL: a Pyodide interpreter (CPython compiled to WebAssembly) in
 * its own child process under Node's permission model. Takes the same options as `@rlm/sandbox`'s
 * `createSandbox`. Host functions become blocking Python functions; the context helpers run on the
 * host. With a spare interpreter ready (see `prewarmPythonSandboxes`) creation is a hand-off.
 *
 * @throws RlmError `config.invalid` when an option is invalid (the message names the
 *   field), `sandbox.aborted` when `signal` is already aborted, `sandbox.poisoned` when no
 *   interpreter could be started.
 * @example
 * const sandbox = await createPythonSandbox({ context: 'some long text', functions: { llm_query } });
 * const result = await sandbox.execute('print(len(context))');
 * await sandbox.dispose();
 */
export async function createPythonSandbox(options: PythonSandboxOptions): Promise<PythonSandbox> {
  const parsed = parseSchema(pythonSandboxOptionsSchema, options, {
    what: 'Python sandbox options',
    code: 'config.invalid',
  });
  const functions: Record<string, HostFunction> = parsed.functions ?? {};
  assertFunctionNames(Object.keys(functions));
  if (parsed.signal?.aborted) {
    throw new RlmError({
      code: 'sandbox.aborted',
      message: 'the signal was already aborted',
      details: {},
    });
  }
  const contexts: JsonValue[] =
    parsed.contexts ?? (parsed.context === undefined ? [] : [parsed.context]);
  return ProcessSandbox.create({
    functions,
    helperNames: parsed.contextHelpers === false ? [] : CONTEXT_HELPER_NAMES,
    contexts,
    meta: parsed.meta ?? {},
    limits: resolvePythonLimits(parsed.limits),
    signal: parsed.signal,
  });
}

/** Options of `prewarmPythonSandboxes`. */
export interface PrewarmOptions {
  /**
   * Spare interpreters to keep ready.
   * @default 1
   */
  count?: number;
  /**
   * The memory limit of the sandboxes they are for (interpreters are sized when they load).
   * @default DEFAULT_MEMORY_BYTES
   */
  memoryBytes?: number;
}

/**
 * Loads spare interpreters now, so the next sandboxes start without waiting for Pyodide (about
 * 1–3 s for the first interpreter of a process, a few hundred ms for later ones). Resolves when
 * they are loaded. Call it at start-up when a program will run Python. Spares never keep the
 * process alive and are killed after 5 minutes unused.
 *
 * @throws RlmError `config.invalid` for a count outside 1–8 or a memory size below 48 MiB
 */
export async function prewarmPythonSandboxes({
  count = 1,
  memoryBytes = DEFAULT_MEMORY_BYTES,
}: PrewarmOptions = {}): Promise<void> {
  if (!Number.isInteger(count) || count < 1 || count > 8 || memoryBytes < MIN_MEMORY_BYTES) {
    throw new RlmError({
      code: 'config.invalid',
      message:
        'prewarmPythonSandboxes: count must be an integer from 1 to 8 and memoryBytes at least 48 MiB',
      details: { source: 'prewarmPythonSandboxes options', issues: ['count', 'memoryBytes'] },
    });
  }
  await interpreterPool.prewarm(resolvePythonLimits({ memoryBytes }).memoryBytes, count);
}

/** Kills every spare interpreter (the next sandbox loads a fresh one). */
export function closePythonPool(): void {
  interpreterPool.close();
}
