import { type ErrorCode, type ErrorDetails, RlmError } from '@rlm/protocol/core';
import type { WireError } from './worker-messages.js';

/** Flattens an error for postMessage (no stack, no cause: nothing of the host leaks). */
export function toWireError(error: unknown): WireError {
  if (RlmError.is(error))
    return { code: error.code, message: error.message, details: error.details };
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { message: String(error) };
}

/** Rebuilds the error on the receiving side: an `RlmError` keeps its code and details. */
export function fromWireError(wire: WireError): Error {
  if (wire.code !== undefined) {
    return new RlmError({
      code: wire.code,
      message: wire.message,
      details: wire.details as ErrorDetails[ErrorCode],
    });
  }
  const error = new Error(wire.message);
  if (wire.name !== undefined) error.name = wire.name;
  return error;
}
