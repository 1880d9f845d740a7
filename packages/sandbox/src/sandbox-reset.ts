import type { BlockError, REPLResult } from '@rlm/protocol';
import type { ErrorDetails } from '@rlm/protocol/core';
import { formatBlockError } from './engine/block-outcome.js';
import type { ResolvedLimits } from './sandbox-options.js';

/** Why a sandbox's engine was replaced by a fresh one. */
export type ResetReason = ErrorDetails['sandbox.reset']['reason'];

const LOST =
  'the REPL was reset: every variable and function from earlier blocks is gone (the context variables, the helpers and the host functions are back). Rebuild what you still need, in smaller steps';

function cause(reason: ResetReason, limits: ResolvedLimits, abortGraceMs: number): string {
  switch (reason) {
    case 'cpu':
      return `the block ran past its ${limits.cpuSliceMs} ms CPU limit inside one built-in call the engine cannot interrupt (a JSON.stringify, sort or regex over a very large value), so the sandbox was stopped from outside`;
    case 'wall':
      return `the block ran past its ${limits.blockTimeoutMs} ms wall-clock limit inside one built-in call the engine cannot interrupt, so the sandbox was stopped from outside`;
    case 'aborted':
      return `the block did not stop within ${abortGraceMs} ms of being aborted (it was inside one built-in call the engine cannot interrupt), so the sandbox was stopped from outside`;
    case 'jobs':
      return 'promise jobs the block left running could not be stopped, so the sandbox was restarted';
  }
}

/** The block error of a reset (`sandbox.reset`): what happened, and that the state is gone. */
export function resetBlockError(
  reason: ResetReason,
  { limits, abortGraceMs }: { limits: ResolvedLimits; abortGraceMs: number },
): BlockError {
  return {
    name: 'RlmError',
    message: `${cause(reason, limits, abortGraceMs)}; ${LOST}.`,
    code: 'sandbox.reset',
  };
}

/** The result of a block that ended with its sandbox reset (its output was lost with it). */
export function resetResult(error: BlockError, executionTime: number): REPLResult {
  return {
    stdout: '',
    stderr: formatBlockError(error),
    locals: {},
    executionTime,
    llmCalls: [],
    finalAnswer: null,
    error,
    unawaitedCalls: {},
  };
}
