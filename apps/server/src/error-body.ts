import { type ErrorCode, RlmError } from '@rlm/protocol';
import { statusForCode } from './status-by-code.js';

/**
 * The JSON error body of every failed request. `message` and `type` are what OpenAI-style clients
 * read; `code` is our stable error code; `details` are the code's typed details.
 */
export interface ErrorBody {
  error: {
    code: ErrorCode;
    message: string;
    type: string;
    details: unknown;
    requestId: string;
  };
}

/** Builds the status and body for an `RlmError`. */
export function errorBody(error: RlmError, requestId: string): { status: number; body: ErrorBody } {
  return {
    status: statusForCode(error.code),
    body: {
      error: {
        code: error.code,
        message: error.message,
        type: error.code.split('.')[0] ?? 'error',
        details: error.details,
        requestId,
      },
    },
  };
}

/** An unexpected failure: the body names only the request id, never internals. */
export function internalError(requestId: string): RlmError<'server.internal'> {
  return new RlmError({
    code: 'server.internal',
    message: `Internal error; quote request id ${requestId} when reporting it`,
    details: { requestId },
  });
}
