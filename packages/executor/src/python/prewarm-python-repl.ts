import { loadPythonSandbox } from './load-python-sandbox.js';

/** Options of `prewarmPythonRepl`. */
export interface PrewarmPythonReplOptions {
  /**
   * Interpreters to keep loaded and ready (1–8). Each is a process of about 200–280 MB.
   * @default 1
   */
  count?: number;
  /**
   * The `limits.memoryBytes` of the RLMs they are for: interpreters are sized when they load, so
   * only ones of that size are handed to those RLMs. @default the sandbox's default (512 MiB)
   */
  memoryBytes?: number | undefined;
}

/**
 * Loads Python interpreters before the first run needs one, so a `repl: 'python'` RLM's first
 * sandbox is a hand-off instead of a load of 1–3 s (more on a busy machine). Also proves early
 * that `@rlm/sandbox-python` is installed: a server or CLI calls it at start-up.
 *
 * @throws RlmError `config.invalid` when `@rlm/sandbox-python` is not installed, or for a count
 *   outside 1–8 or a memory size below 48 MiB
 * @example
 * await prewarmPythonRepl({ count: 2 }); // before serving profiles with repl: 'python'
 */
export async function prewarmPythonRepl({
  count = 1,
  memoryBytes,
}: PrewarmPythonReplOptions = {}): Promise<void> {
  const { prewarmPythonSandboxes } = await loadPythonSandbox();
  await prewarmPythonSandboxes({ count, ...(memoryBytes === undefined ? {} : { memoryBytes }) });
}
