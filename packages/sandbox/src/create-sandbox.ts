import { parseSchema, RlmError } from '@rlm/protocol';
import { CONTEXT_HELPER_NAMES } from './context-ops/context-scanner.js';
import { toStreamedText } from './context-ops/shared-text.js';
import type { EngineInit } from './engine/quickjs-engine.js';
import { InlineSandbox } from './inline-sandbox.js';
import type { Sandbox } from './sandbox.js';
import {
  type HostFunction,
  resolveLimits,
  type SandboxOptions,
  sandboxOptionsSchema,
} from './sandbox-options.js';
import { WorkerSandbox } from './worker-sandbox.js';

/**
 * Creates an isolated, persistent QuickJS REPL.
 *
 * @throws RlmError `config.invalid` when an option is invalid (the message names the field),
 *   `sandbox.aborted` when `signal` is already aborted.
 * @example
 * const sandbox = await createSandbox({ context: 'some long text', functions: { llm_query } });
 * const result = await sandbox.execute('print(context.length)');
 * await sandbox.dispose();
 */
export async function createSandbox(options: SandboxOptions): Promise<Sandbox> {
  const parsed = parseSchema(sandboxOptionsSchema, options, {
    what: 'sandbox options',
    code: 'config.invalid',
  });
  const isolation = parsed.isolation ?? 'worker';
  const functions: Record<string, HostFunction> = parsed.functions ?? {};
  assertFunctionNames(Object.keys(functions));
  // Long strings stay here: the threads that read them get them piece by piece from this one.
  const contexts = (parsed.contexts ?? (parsed.context === undefined ? [] : [parsed.context])).map(
    (payload) => (typeof payload === 'string' ? (toStreamedText(payload) ?? payload) : payload),
  );
  const init: EngineInit = {
    contexts,
    meta: parsed.meta ?? {},
    functionNames: Object.keys(functions),
    helperNames: parsed.contextHelpers === false ? [] : [...CONTEXT_HELPER_NAMES],
    limits: resolveLimits(parsed.limits, isolation),
  };
  const { signal } = parsed;
  if (signal?.aborted) {
    throw new RlmError({
      code: 'sandbox.aborted',
      message: 'the signal was already aborted',
      details: {},
    });
  }
  const setup = { init, functions, signal };
  return isolation === 'inline' ? InlineSandbox.create(setup) : WorkerSandbox.create(setup);
}

/** Names the sandbox defines itself; a supplied function may not take them. */
const SCAFFOLD_NAMES = ['FINAL', 'FINAL_VAR', 'SHOW_VARS', 'print', 'console', '__rlm'];
const PAYLOAD_NAME = /^(context|history)(_\d+)?$/;

function assertFunctionNames(names: readonly string[]): void {
  const taken = names.filter(
    (name) =>
      SCAFFOLD_NAMES.includes(name) ||
      CONTEXT_HELPER_NAMES.includes(name) ||
      PAYLOAD_NAME.test(name),
  );
  if (taken.length === 0) return;
  const issues = taken.map((name) => `functions.${name}: the sandbox defines ${name} itself`);
  throw new RlmError({
    code: 'config.invalid',
    message: `Invalid sandbox options:\n${issues.join('\n')}`,
    details: { source: 'sandbox options', issues },
  });
}
