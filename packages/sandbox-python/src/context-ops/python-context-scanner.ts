import { type JsonValue, RlmError } from '@rlm/protocol';
import { ContextScanner } from '@rlm/sandbox/context-ops';

/** Argument schemas (zod) load on the first helper call, not with every sandbox. */
const helperArguments = () => import('./helper-arguments.js');

/**
 * The context helpers of one Python sandbox: the shared scanner (see `@rlm/sandbox/context-ops`),
 * with offsets in code points (Python's `str` indices) and Python's argument conventions.
 */
export function pythonContextScanner(options: {
  timeoutMs: number;
  maxChars: number;
}): ContextScanner {
  return new ContextScanner({
    ...options,
    codePoints: true,
    parseCall: async (helper, args, caps) =>
      (await helperArguments()).parseHelperCall(helper, args, caps.maxChars),
  });
}

/**
 * Runs one helper call for Python code. Too many chunks is told with Python's keyword syntax
 * (`max=N`), as a plain error (a `HostError` in Python).
 *
 * @throws RlmError `sandbox.invalid_value`, `sandbox.invalid_pattern`, `sandbox.pattern_timeout`
 */
export async function runPythonHelper(
  scanner: ContextScanner,
  call: { helper: string; args: JsonValue[]; signal: AbortSignal },
): Promise<JsonValue> {
  try {
    return await scanner.run(call.helper, call.args, call.signal);
  } catch (error) {
    if (!RlmError.is(error, 'sandbox.too_large') || error.details.what !== 'chunk') throw error;
    const { size: count, limit } = error.details;
    throw new Error(
      `chunk: ${count} chunks of ${String(call.args[0])} characters exceed max (${limit}); use a larger size or pass max=${count} (at most 100000)`,
    );
  }
}
