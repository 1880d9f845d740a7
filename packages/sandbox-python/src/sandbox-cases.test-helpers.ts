import type { JsonValue } from '@rlm/protocol';
import { createPythonSandbox } from './create-python-sandbox.js';
import type { PythonSandbox } from './python-sandbox.js';
import type { HostFunction, PythonSandboxOptions } from './sandbox-options.js';

/** Small memory keeps test interpreters cheap; memory bombs fill it quickly. */
export const TEST_MEMORY_BYTES = 128 * 1024 * 1024;

/** Creates a sandbox for one test and disposes it afterwards. */
export async function withSandbox<T>(
  options: PythonSandboxOptions,
  run: (sandbox: PythonSandbox) => Promise<T>,
): Promise<T> {
  const sandbox = await createPythonSandbox({
    ...options,
    limits: { memoryBytes: TEST_MEMORY_BYTES, ...options.limits },
  });
  try {
    return await run(sandbox);
  } finally {
    await sandbox.dispose();
  }
}

/** Runs a block that must not fail and returns its stdout. */
export async function run(sandbox: PythonSandbox, code: string): Promise<string> {
  const result = await sandbox.execute(code);
  if (result.error !== null) {
    throw new Error(
      `block failed: ${result.error.name}: ${result.error.message}\n${result.stderr}`,
    );
  }
  return result.stdout;
}

/** A host function that resolves with `respond(args)` after `delayMs`, honouring its signal. */
export function delayedFunction(
  delayMs: number,
  respond: (args: JsonValue[]) => JsonValue = (args) => `echo:${JSON.stringify(args)}`,
): HostFunction & { aborted: number; calls: number } {
  const fn = {
    description: 'test function',
    aborted: 0,
    calls: 0,
    call: (args: JsonValue[], { signal }: { signal: AbortSignal }) =>
      new Promise<JsonValue>((resolve, reject) => {
        fn.calls += 1;
        const timer = setTimeout(() => resolve(respond(args)), delayMs);
        signal.addEventListener(
          'abort',
          () => {
            fn.aborted += 1;
            clearTimeout(timer);
            reject(signal.reason);
          },
          { once: true },
        );
      }),
  };
  return fn;
}
