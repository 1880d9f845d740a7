import {
  type BlockError,
  type ErrorCode,
  type REPLResult,
  RlmError,
  truncationMarker,
} from '@rlm/protocol';
import type { RawBlockResult, StopKind } from './child/child-messages.js';
import type { ResolvedPythonLimits } from './sandbox-options.js';

/** Python exceptions that mean a sandbox limit, with the code `@rlm/sandbox` uses for the same. */
const LIMIT_EXCEPTIONS: Partial<Record<string, ErrorCode>> = {
  MemoryError: 'sandbox.out_of_memory',
  RecursionError: 'sandbox.stack_overflow',
};

/** The error a limit stopped a block with (same codes and wording as `@rlm/sandbox`). */
export function limitError(kind: StopKind, limits: ResolvedPythonLimits): RlmError {
  if (kind === 'aborted') {
    return new RlmError({ code: 'sandbox.aborted', message: 'the block was aborted', details: {} });
  }
  return kind === 'cpu'
    ? new RlmError({
        code: 'sandbox.timeout',
        message: `the block used more than its ${limits.cpuSliceMs} ms of CPU time and was stopped; variables assigned before that point are kept`,
        details: { limitMs: limits.cpuSliceMs, kind: 'cpu' },
      })
    : new RlmError({
        code: 'sandbox.timeout',
        message: `the block ran longer than its ${limits.blockTimeoutMs} ms wall-clock limit and was stopped; variables assigned before that point are kept`,
        details: { limitMs: limits.blockTimeoutMs, kind: 'wall' },
      });
}

/** The stderr line of a limit error, as `@rlm/sandbox` writes it. */
function formatLimit(error: BlockError): string {
  return `RlmError [${error.code}]: ${error.message}\n`;
}

export interface AssembleOptions {
  limits: ResolvedPythonLimits;
  executionTime: number;
  /** Set when the interpreter was lost and replaced during this block. */
  resetNote?: string;
}

/** Turns what the interpreter reported into the `REPLResult` the executor reads. */
export function assembleResult(raw: RawBlockResult, options: AssembleOptions): REPLResult {
  const { limits } = options;
  const marker = (dropped: number): string => (dropped > 0 ? `${truncationMarker(dropped)}\n` : '');
  let error: BlockError | null = null;
  let tail = '';
  if (raw.stop !== null) {
    const limit = limitError(raw.stop, limits);
    error = { name: 'RlmError', message: limit.message, code: limit.code };
    tail = formatLimit(error);
  } else if (raw.lost !== null) {
    error = {
      name: 'RlmError',
      message: `the interpreter failed (${raw.lost.detail})`,
      code: 'sandbox.poisoned',
    };
    tail = formatLimit(error);
  } else if (raw.error !== null) {
    const code = LIMIT_EXCEPTIONS[raw.error.name];
    error = {
      name: raw.error.name,
      message: raw.error.message,
      ...(code === undefined ? {} : { code }),
      ...(raw.error.line === null ? {} : { line: raw.error.line }),
    };
    tail = raw.error.traceback.endsWith('\n') ? raw.error.traceback : `${raw.error.traceback}\n`;
  }
  const cleared =
    raw.cleared.length > 0
      ? `note: to free memory, variables created by this block were deleted: ${raw.cleared.join(', ')}\n`
      : '';
  return {
    stdout: raw.stdout + marker(raw.droppedStdout),
    stderr: raw.stderr + marker(raw.droppedStderr) + tail + cleared + (options.resetNote ?? ''),
    locals: raw.locals,
    executionTime: options.executionTime,
    llmCalls: [],
    finalAnswer: raw.finalAnswer,
    error,
    // Python's host calls block until they return: a block cannot leave one pending.
    unawaitedCalls: {},
  };
}
