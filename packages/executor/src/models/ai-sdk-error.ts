import { RlmError } from '@rlm/protocol';
import {
  abortedError,
  modelErrorFromFailure,
  networkError,
  retryAfterMsOf,
  saysContextTooLong,
  timeoutError,
} from './model-error.js';

export interface AISDKErrorContext {
  modelId: string;
  timeoutMs: number;
  /** The caller's signal: an abort it caused is `model.aborted`, whatever the provider threw. */
  signal: AbortSignal | undefined;
}

/**
 * Whether `error` is the AI SDK error called `name` (`AI_APICallError`, …). The SDK brands its
 * errors with `Symbol.for('vercel.ai.error.<name>')`, the check its own `isInstance` does, so this
 * works across duplicate installs without a runtime import of `@ai-sdk/provider`.
 */
function isAISDKError(error: unknown, name: string): error is Error & Record<string, unknown> {
  const marker = Symbol.for(`vercel.ai.error.${name}`);
  return (
    typeof error === 'object' &&
    error !== null &&
    marker in error &&
    (error as Record<symbol, unknown>)[marker] === true
  );
}

/** The fields of the AI SDK's `APICallError` this mapping reads. */
interface APICallErrorFields {
  message: string;
  statusCode?: number;
  responseHeaders?: Record<string, string>;
  responseBody?: string;
  isRetryable: boolean;
  data?: unknown;
}

/** Errors the provider package raises before sending anything: the request itself is wrong. */
const REQUEST_ERRORS = [
  'AI_InvalidPromptError',
  'AI_InvalidArgumentError',
  'AI_UnsupportedFunctionalityError',
];

/**
 * Maps anything an AI SDK language model throws (or puts in an `error` stream part) to a typed
 * `RlmError`: `APICallError` by its status code (429 `model.rate_limited` with the `retry-after`
 * delay, 401/403 `model.auth`, 404 `model.not_found`, a context-window message
 * `model.context_too_long`, other 4xx `model.bad_request`, 5xx `model.server_error`; no status
 * means the connection failed, `model.network`); a provider's error body in an `error` stream part
 * by its type (`model.rate_limited`, `model.overloaded`, `model.context_too_long`, else
 * `model.server_error`); `LoadAPIKeyError` `model.auth`; the caller's abort `model.aborted`.
 */
export function fromAISDKError(error: unknown, context: AISDKErrorContext): RlmError {
  const { modelId, timeoutMs, signal } = context;
  if (RlmError.is(error)) return error;
  if (signal?.aborted) return abortedError(modelId, signal);
  if (isAISDKError(error, 'AI_APICallError')) return fromAPICallError(error, modelId);
  if (isAISDKError(error, 'AI_LoadAPIKeyError')) {
    return new RlmError({
      code: 'model.auth',
      message: `${modelId} has no API key: ${error.message}`,
      details: { status: undefined },
      cause: error,
    });
  }
  if (REQUEST_ERRORS.some((name) => isAISDKError(error, name))) {
    return new RlmError({
      code: 'model.bad_request',
      message: `${modelId}: ${error instanceof Error ? error.message : String(error)}`,
      // Refused by the provider package before sending, as the API would refuse it.
      details: { status: 400 },
      cause: error,
    });
  }
  if (error instanceof Error && error.name === 'TimeoutError') {
    return timeoutError(modelId, timeoutMs, error);
  }
  if (error instanceof Error && error.name === 'AbortError') return abortedError(modelId, signal);
  const body = providerErrorBody(error);
  if (body !== undefined) {
    // A mid-stream error event, passed on by the provider package as the API sent it: there is
    // no status, so its type says what failed (rate limit, overload, else a server error).
    return modelErrorFromFailure({
      status: undefined,
      type: body.type,
      message: body.message,
      contextTooLong: saysContextTooLong(body.type, body.message),
      retryAfterMs: undefined,
      modelId,
      cause: error,
    });
  }
  // Malformed stream data, a socket closed mid-body and the like.
  const reason = error instanceof Error ? error.message : String(error);
  return networkError(modelId, `stream failed: ${reason}`, error);
}

/**
 * The type and message of a provider's error body (`{ type, message }`, `{ code, message }`,
 * or either inside `{ error: … }`), which provider packages put in `error` stream parts as is.
 */
function providerErrorBody(error: unknown): { type?: string; message: string } | undefined {
  if (typeof error !== 'object' || error === null || error instanceof Error) return undefined;
  const inner = (error as { error?: unknown }).error;
  const body = (typeof inner === 'object' && inner !== null ? inner : error) as {
    message?: unknown;
  };
  const type = providerErrorType({ error: body });
  if (typeof body.message !== 'string' && type === undefined) return undefined;
  const message = typeof body.message === 'string' ? body.message : `error ${type}`;
  return type === undefined ? { message } : { type, message };
}

function fromAPICallError(error: Error & Record<string, unknown>, modelId: string): RlmError {
  const fields = error as unknown as APICallErrorFields;
  const status = fields.statusCode;
  if (status === undefined) {
    // The provider utilities wrap a failed fetch ("Cannot connect to API") this way.
    return networkError(modelId, fields.message, error);
  }
  const headers = fields.responseHeaders ?? {};
  const type = providerErrorType(fields.data);
  const mapped = modelErrorFromFailure({
    status,
    type,
    message: fields.message,
    contextTooLong:
      (status === 400 || status === 413) &&
      saysContextTooLong(type, fields.message, fields.responseBody),
    retryAfterMs: retryAfterMsOf({ get: (name) => headers[name] ?? null }),
    modelId,
    cause: error,
  });
  // The provider package decided retryability (status codes, `x-should-retry`): keep its word.
  if (mapped.retryable === fields.isRetryable) return mapped;
  return new RlmError({
    code: mapped.code,
    message: mapped.message,
    details: mapped.details,
    retryable: fields.isRetryable,
    cause: error,
  });
}

/** `error.type` or `error.code` of a parsed provider error body (`{ error: { type, code } }`). */
function providerErrorType(data: unknown): string | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const inner = (data as { error?: unknown }).error;
  if (typeof inner !== 'object' || inner === null) return undefined;
  const { type, code } = inner as { type?: unknown; code?: unknown };
  if (typeof code === 'string') return code;
  return typeof type === 'string' ? type : undefined;
}
