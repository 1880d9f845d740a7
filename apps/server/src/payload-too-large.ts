import { RlmError } from '@rlm/protocol';
import type { Context } from 'hono';
import { errorBody } from './error-body.js';

/** The `onError` of Hono's `bodyLimit`: a 413 with our JSON error body naming the limit. */
export function payloadTooLarge(what: string, limitBytes: number) {
  return function payloadTooLargeResponse(c: Context): Response {
    const { body } = errorBody(
      new RlmError({
        code: 'server.payload_too_large',
        message: `The ${what} exceeds the limit of ${limitBytes} bytes`,
        details: { what, limitBytes },
      }),
      c.get('requestId') ?? 'unknown',
    );
    return c.json(body, 413);
  };
}
