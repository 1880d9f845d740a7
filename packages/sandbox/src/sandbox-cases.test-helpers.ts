import type { JsonValue } from '@rlm/protocol';
import { createSandbox } from './create-sandbox.js';
import type { Sandbox, SandboxIsolation } from './sandbox.js';
import type { HostFunction, SandboxOptions } from './sandbox-options.js';

/** Both isolation modes run the same suites. */
export const ISOLATIONS: readonly SandboxIsolation[] = ['inline', 'worker'];

/** Small memory keeps test sandboxes cheap; bombs fill it quickly. */
export const TEST_MEMORY_BYTES = 64 * 1024 * 1024;

/** Creates a sandbox for one test and disposes it afterwards. */
export async function withSandbox<T>(
  options: SandboxOptions,
  run: (sandbox: Sandbox) => Promise<T>,
): Promise<T> {
  const sandbox = await createSandbox({
    ...options,
    limits: { memoryBytes: TEST_MEMORY_BYTES, ...options.limits },
  });
  try {
    return await run(sandbox);
  } finally {
    await sandbox.dispose();
  }
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
