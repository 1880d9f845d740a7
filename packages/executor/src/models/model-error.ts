import { type ModelResponse, RlmError } from '@rlm/protocol';

/** What a provider error says, in provider-neutral terms. */
export interface ProviderFailure {
  /** HTTP status; `undefined` for an error event inside a 200 stream. */
  status: number | undefined;
  /** The provider's error type or code (`overloaded_error`, `context_length_exceeded`, …). */
  type: string | undefined;
  /** The provider's own message (safe to show: it never contains our API key). */
  message: string;
  /** Whether the provider's words say the prompt exceeded the context window. */
  contextTooLong: boolean;
  retryAfterMs: number | undefined;
  /** The model id as `provider/model`. */
  modelId: string;
  cause: unknown;
}

/**
 * Maps a provider failure to a typed `RlmError`. Rate limits, overload, server errors and
 * failures inside a stream are retryable; client errors are not.
 */
export function modelErrorFromFailure(failure: ProviderFailure): RlmError {
  const { status, type, message, cause, modelId } = failure;
  const text = `${modelId}: ${message}`;
  if (failure.contextTooLong || status === 413) {
    return new RlmError({
      code: 'model.context_too_long',
      message: text,
      details: { status: status ?? 400 },
      cause,
    });
  }
  if (status === 429 || type === 'rate_limit_error' || type === 'rate_limit_exceeded') {
    return new RlmError({
      code: 'model.rate_limited',
      message: text,
      details: { retryAfterMs: failure.retryAfterMs, status: status ?? 429 },
      retryable: true,
      cause,
    });
  }
  if (status === 529 || type === 'overloaded_error') {
    return new RlmError({
      code: 'model.overloaded',
      message: text,
      details: { status: status ?? 529 },
      retryable: true,
      cause,
    });
  }
  if (status === 401 || status === 403) {
    return new RlmError({ code: 'model.auth', message: text, details: { status }, cause });
  }
  if (status === 404) {
    const model = modelId.slice(modelId.indexOf('/') + 1);
    return new RlmError({
      code: 'model.not_found',
      message: text,
      details: { status, model },
      cause,
    });
  }
  if (status !== undefined && status < 500 && status !== 408 && status !== 409) {
    return new RlmError({ code: 'model.bad_request', message: text, details: { status }, cause });
  }
  return new RlmError({
    code: 'model.server_error',
    message: text,
    details: { status: status ?? 500 },
    retryable: true,
    cause,
  });
}

/**
 * Words providers use when a prompt is over the context window. Providers have no stable error
 * code for it (Anthropic answers a plain 400 invalid_request_error), so their message is the only
 * signal; this is matching the provider's wire text, never our own error messages.
 */
const CONTEXT_TOO_LONG_PATTERN =
  /prompt is too long|context length|context window|maximum context|exceeds? the available context|too many tokens|context_length_exceeded|exceed_context_size/i;

/** True when a provider's error type or message says the prompt is over the context window. */
export function saysContextTooLong(...texts: readonly (string | undefined)[]): boolean {
  return texts.some((text) => text !== undefined && CONTEXT_TOO_LONG_PATTERN.test(text));
}

/** Reads `retry-after-ms` (milliseconds) or `retry-after` (seconds or an HTTP date). */
export function retryAfterMsOf(
  headers: { get(name: string): string | null } | undefined,
  now: number = Date.now(),
): number | undefined {
  const milliseconds = Number.parseFloat(headers?.get('retry-after-ms') ?? '');
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const value = headers?.get('retry-after');
  if (value === null || value === undefined) return undefined;
  const seconds = Number.parseFloat(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The `model.aborted` error for a cancelled call (the signal's reason is kept as `cause`). */
export function abortedError(modelId: string, signal: AbortSignal | undefined): RlmError {
  return new RlmError({
    code: 'model.aborted',
    message: `${modelId}: the call was aborted`,
    details: {},
    cause: signal?.reason,
  });
}

/** The `model.timeout` error for a call that got no response (or no stream event) in time. */
export function timeoutError(modelId: string, limitMs: number, cause?: unknown): RlmError {
  return new RlmError({
    code: 'model.timeout',
    message: `${modelId}: no response within ${limitMs} ms`,
    details: { limitMs },
    retryable: true,
    cause,
  });
}

/** The `model.network` error for a connection that failed or a stream that ended early. */
export function networkError(modelId: string, reason: string, cause?: unknown): RlmError {
  return new RlmError({
    code: 'model.network',
    message: `${modelId}: ${reason}`,
    details: {},
    retryable: true,
    cause,
  });
}

/**
 * The `model.auth` error for a client created without a key: found before any request, naming
 * the environment variable apps read the key from and the client option that takes it.
 */
export function missingKeyError({
  modelId,
  variable,
  option = 'apiKey',
  hint = '',
}: {
  modelId: string;
  variable: string;
  option?: string;
  /** A sentence appended to the message (another way to run without a key). */
  hint?: string;
}): RlmError<'model.auth'> {
  return new RlmError({
    code: 'model.auth',
    message: `${modelId} has no API key: set ${variable} or pass the \`${option}\` option.${hint === '' ? '' : ` ${hint}`}`,
    details: { status: undefined, variable, option },
  });
}

/**
 * The `model.refused` error for a response that stopped with `refusal`: the provider declined to
 * answer, which no retry changes. Names the provider's category and explanation when it gave them.
 */
export function refusedError(response: ModelResponse): RlmError<'model.refused'> {
  const category = response.refusal?.category ?? null;
  const explanation = response.refusal?.explanation ?? null;
  const why = [
    category === null ? '' : ` (policy category: ${category})`,
    explanation === null ? '' : `: ${explanation}`,
  ].join('');
  return new RlmError({
    code: 'model.refused',
    message: `${response.model}: the model refused to answer${why}`,
    details: { model: response.model, category },
  });
}
