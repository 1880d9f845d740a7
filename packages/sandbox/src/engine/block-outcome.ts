import type { BlockError } from '@rlm/protocol';
import { type ErrorCode, RlmError } from '@rlm/protocol/core';

/** Characters of a thrown error's name that leave the sandbox (message and stack: `maxOutputChars`). */
export const MAX_ERROR_NAME_CHARS = 200;

/** A guest error as the prelude's `describeError` reports it. */
export interface GuestErrorInfo {
  name: string;
  message: string;
  stack: string;
  lineNumber: number | null;
  /** The code of an error the scaffold raised (a helper's `RlmError`, an oversized answer). */
  code: string | null;
}

const BLOCK_FRAME = /\(?block\.js:(\d+)(?::\d+)?\)?/;

/** The 1-based line in the block where a guest error was raised, when its stack names one. */
export function errorLine(info: GuestErrorInfo): number | undefined {
  if (info.lineNumber !== null && info.lineNumber > 0) return info.lineNumber;
  const match = BLOCK_FRAME.exec(info.stack);
  const line = match?.[1] === undefined ? undefined : Number(match[1]);
  return line !== undefined && line > 0 ? line : undefined;
}

/** A `BlockError` for an exception thrown by guest code. */
export function guestBlockError(info: GuestErrorInfo): BlockError {
  const line = errorLine(info);
  const code = engineErrorCode(info) ?? info.code ?? undefined;
  return {
    name: info.name,
    message: info.message,
    ...(code === undefined ? {} : { code }),
    ...(line === undefined ? {} : { line }),
  };
}

/**
 * QuickJS signals exhaustion only through an `InternalError` with a fixed message; there is no
 * other channel, so this is the one place that reads an engine message to classify it.
 */
function engineErrorCode(info: GuestErrorInfo): ErrorCode | undefined {
  if (info.name !== 'InternalError') return undefined;
  if (info.message === 'out of memory') return 'sandbox.out_of_memory';
  if (info.message === 'stack overflow') return 'sandbox.stack_overflow';
  return undefined;
}

/** A `BlockError` for a limit that stopped the block. */
export function limitBlockError(error: RlmError): BlockError {
  return { name: 'RlmError', message: error.message, code: error.code };
}

/** The stderr text for a block error: `Name: message` plus the line, as the model sees it. */
export function formatBlockError(error: BlockError): string {
  const head =
    error.name === 'RlmError' && error.code !== undefined
      ? `RlmError [${error.code}]: ${error.message}`
      : `${error.name}: ${error.message}`;
  return error.line === undefined
    ? `${head}\n`
    : `${head}\n    at line ${error.line} of this block\n`;
}

/** Builds the limit errors the engine reports. */
export const limitErrors = {
  cpu: (limitMs: number) =>
    new RlmError({
      code: 'sandbox.timeout',
      message: `the block used more than its ${limitMs} ms of CPU time and was stopped; declarations made before that point are kept`,
      details: { limitMs, kind: 'cpu' },
    }),
  wall: (limitMs: number) =>
    new RlmError({
      code: 'sandbox.timeout',
      message: `the block ran longer than its ${limitMs} ms wall-clock limit and was stopped; late host results are dropped`,
      details: { limitMs, kind: 'wall' },
    }),
  deadlock: () =>
    new RlmError({
      code: 'sandbox.deadlock',
      message:
        'the block awaits a promise that nothing can settle (no host call is in flight); it was stopped',
      details: {},
    }),
  aborted: () =>
    new RlmError({ code: 'sandbox.aborted', message: 'the block was aborted', details: {} }),
};
