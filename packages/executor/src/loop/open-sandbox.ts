import { type JsonValue, type ReplEnvironment, type ReplLanguage, RlmError } from '@rlm/protocol';
import { createSandbox } from '@rlm/sandbox';
import type { ResolvedRLMConfig } from '../config/rlm-config.js';
import type { ToolDefinition } from '../config/tool-definition.js';
import {
  DELEGATE_HOST_FUNCTION,
  delegateSetup,
  dispatcherFunctions,
  type ProposedAnswer,
} from '../dispatch/dispatcher-functions.js';
import type { TaskDispatcher } from '../dispatch/task-dispatcher.js';
import { openPythonSandbox } from '../python/open-python-sandbox.js';
import type { RunNode } from '../run/run-node.js';
import { hostFunctions } from './host-functions.js';
import type { InvocationSpec } from './invocation-spec.js';
import type { SubCallRunner } from './sub-call-runner.js';

/** The host functions of an invocation's sandbox, dispatcher verbs included when it has one. */
export function sandboxFunctions(
  node: RunNode,
  {
    spec,
    runner,
    dispatcher,
    onAnswer,
  }: {
    spec: InvocationSpec;
    runner: SubCallRunner;
    dispatcher: TaskDispatcher | null;
    onAnswer: (answer: ProposedAnswer) => void;
  },
): Record<string, ToolDefinition> {
  const extra =
    dispatcher === null ? {} : dispatcherFunctions(dispatcher, { onAnswer, repl: spec.repl });
  const functions = hostFunctions(node, runner, { toolNames: spec.toolNames, extra });
  const { onHostCall } = spec;
  if (onHostCall === undefined) return functions;
  return Object.fromEntries(
    Object.entries(functions).map(([name, tool]): [string, ToolDefinition] => [
      name,
      {
        ...tool,
        call: (args, options) => {
          onHostCall();
          return tool.call(args, options);
        },
      },
    ]),
  );
}

/**
 * Opens a sandbox of `repl`'s language with the configured limits and isolation (and sets up
 * `delegate` in a JavaScript one when it gets the dispatcher; in Python it is a host function).
 * Used by each invocation for its own sandbox and by sessions.
 */
export async function openSandbox(
  config: ResolvedRLMConfig,
  {
    context,
    contexts = [],
    functions,
    dispatcher,
    meta,
    signal,
    repl,
  }: {
    context: JsonValue;
    /** Payloads after the first; the sandbox then holds `context_0`, `context_1`, …. */
    contexts?: readonly JsonValue[] | undefined;
    functions: Record<string, ToolDefinition>;
    dispatcher: boolean;
    meta: Record<string, JsonValue>;
    signal: AbortSignal;
    repl: ReplLanguage;
  },
): Promise<ReplEnvironment> {
  const { blockTimeoutMs, cpuSliceMs, memoryBytes, maxOutputChars } = config.limits;
  // One payload keeps the plain `context` option (unchanged); several become `context_0…`.
  const payloads = contexts.length === 0 ? { context } : { contexts: [context, ...contexts] };
  if (repl === 'python') return openPythonSandbox(config, { payloads, functions, meta, signal });
  const delegations = { started: 0 };
  const sandbox = await createSandbox({
    ...payloads,
    functions: dispatcher ? countingDelegations(functions, delegations) : functions,
    meta,
    limits: {
      blockTimeoutMs,
      maxOutputChars,
      ...(cpuSliceMs === undefined ? {} : { cpuSliceMs }),
      ...(memoryBytes === undefined ? {} : { memoryBytes }),
    },
    signal,
    isolation: config.isolation,
    contextHelpers: config.contextHelpers,
  });
  if (!dispatcher) return sandbox;
  const setup = await sandbox.execute(delegateSetup(), { signal });
  if (setup.error !== null) {
    await sandbox.dispose().catch(() => undefined);
    throw new RlmError({
      code: 'sandbox.poisoned',
      message: `The dispatcher could not be set up in the sandbox: ${setup.error.message}`,
      details: { reason: setup.error.message },
    });
  }
  return settingUpDelegateAfterReset(sandbox, delegations);
}

/** Counts the tasks `delegate()` starts, so a reset REPL numbers new ones after them. */
function countingDelegations(
  functions: Record<string, ToolDefinition>,
  delegations: { started: number },
): Record<string, ToolDefinition> {
  const delegate = functions[DELEGATE_HOST_FUNCTION];
  if (delegate === undefined) return functions;
  return {
    ...functions,
    [DELEGATE_HOST_FUNCTION]: {
      ...delegate,
      call: (args, options) => {
        delegations.started += 1;
        return delegate.call(args, options);
      },
    },
  };
}

/**
 * A sandbox whose engine was reset (`sandbox.reset`) lost `delegate`, which setup code defined:
 * it is defined again, numbering tasks after those already started, before the next block.
 */
function settingUpDelegateAfterReset(
  sandbox: ReplEnvironment,
  delegations: { started: number },
): ReplEnvironment {
  return {
    async execute(code, options) {
      const result = await sandbox.execute(code, options);
      if (result.error?.code === 'sandbox.reset') {
        await sandbox.execute(delegateSetup(delegations.started), options).catch(() => undefined);
      }
      return result;
    },
    getVariable: (name, options) => sandbox.getVariable(name, options),
    setVariable: (name, value) => sandbox.setVariable(name, value),
    listVariables: () => sandbox.listVariables(),
    dispose: () => sandbox.dispose(),
  };
}
