import { RlmError } from '@rlm/protocol';
import type { ErrorHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { AppEnv } from './app-env.js';
import { errorBody, internalError } from './error-body.js';

/** Maps any thrown value to the JSON error body: `RlmError` by code, the rest to 500. */
export const handleError: ErrorHandler<AppEnv> = function handleError(error, c) {
  const requestId = c.get('requestId') ?? 'unknown';
  if (error instanceof HTTPException) return error.getResponse();
  const known = RlmError.is(error) ? error : undefined;
  if (known === undefined) {
    c.get('log')?.error({ err: error }, 'unhandled error');
  } else if (errorBody(known, requestId).status >= 500) {
    c.get('log')?.error({ code: known.code }, known.message);
  }
  const { status, body } = errorBody(known ?? internalError(requestId), requestId);
  const headers = new Headers();
  if (RlmError.is(error, 'server.rate_limited')) {
    headers.set('retry-after', String(Math.max(1, Math.ceil(error.details.retryAfterMs / 1000))));
  }
  return c.json(body, status as ContentfulStatusCode, Object.fromEntries(headers));
};
