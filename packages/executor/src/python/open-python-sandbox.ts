import type { JsonValue, ReplEnvironment } from '@rlm/protocol';
import type { ResolvedRLMConfig } from '../config/rlm-config.js';
import type { ToolDefinition } from '../config/tool-definition.js';
import { loadPythonSandbox } from './load-python-sandbox.js';

/**
 * Opens a Python REPL (`@rlm/sandbox-python`) with the same payloads, functions, metadata and
 * limits a JavaScript one gets. Host functions become blocking Python functions: keyword
 * arguments arrive as one trailing options object (`system_prompt=` as `systemPrompt`), so the
 * executor's functions serve both languages unchanged. `delegate` is a host function here (it
 * returns the task id when the call returns), so there is no setup code to run.
 *
 * @throws RlmError `config.invalid` when `@rlm/sandbox-python` is not installed
 */
export async function openPythonSandbox(
  config: ResolvedRLMConfig,
  {
    payloads,
    functions,
    meta,
    signal,
  }: {
    payloads: { context: JsonValue } | { contexts: JsonValue[] };
    functions: Record<string, ToolDefinition>;
    meta: Record<string, JsonValue>;
    signal: AbortSignal;
  },
): Promise<ReplEnvironment> {
  const { createPythonSandbox } = await loadPythonSandbox();
  const { blockTimeoutMs, cpuSliceMs, memoryBytes, maxOutputChars } = config.limits;
  return createPythonSandbox({
    ...payloads,
    functions,
    meta,
    limits: {
      blockTimeoutMs,
      maxOutputChars,
      ...(cpuSliceMs === undefined ? {} : { cpuSliceMs }),
      ...(memoryBytes === undefined ? {} : { memoryBytes }),
    },
    signal,
    contextHelpers: config.contextHelpers,
  });
}
