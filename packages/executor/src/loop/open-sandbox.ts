import { type JsonValue, type ReplEnvironment, RlmError } from '@rlm/protocol';
import { createSandbox } from '@rlm/sandbox';
import type { ToolDefinition } from '../config/tool-definition.js';
import {
  DELEGATE_SETUP,
  dispatcherFunctions,
  type ProposedAnswer,
} from '../dispatch/dispatcher-functions.js';
import type { TaskDispatcher } from '../dispatch/task-dispatcher.js';
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
  const extra = dispatcher === null ? {} : dispatcherFunctions(dispatcher, { onAnswer });
  return hostFunctions(node, runner, { toolNames: spec.toolNames, extra });
}

/** Opens an invocation's own sandbox (and sets up `delegate` in it when it has a dispatcher). */
export async function openSandbox(
  node: RunNode,
  {
    spec,
    functions,
    dispatcher,
    meta,
  }: {
    spec: InvocationSpec;
    functions: Record<string, ToolDefinition>;
    dispatcher: boolean;
    meta: Record<string, JsonValue>;
  },
): Promise<ReplEnvironment> {
  const { config } = node.tree;
  const { blockTimeoutMs, cpuSliceMs, memoryBytes, maxOutputChars } = config.limits;
  const sandbox = await createSandbox({
    context: spec.context,
    functions,
    meta,
    limits: {
      blockTimeoutMs,
      maxOutputChars,
      ...(cpuSliceMs === undefined ? {} : { cpuSliceMs }),
      ...(memoryBytes === undefined ? {} : { memoryBytes }),
    },
    signal: node.scope.signal,
    isolation: config.isolation,
  });
  if (dispatcher) {
    const setup = await sandbox.execute(DELEGATE_SETUP, { signal: node.scope.signal });
    if (setup.error !== null) {
      await sandbox.dispose().catch(() => undefined);
      throw new RlmError({
        code: 'sandbox.poisoned',
        message: `The dispatcher could not be set up in the sandbox: ${setup.error.message}`,
        details: { reason: setup.error.message },
      });
    }
  }
  return sandbox;
}
