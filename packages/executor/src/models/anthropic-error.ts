import { RlmError } from '@rlm/protocol';
import {
  abortedError,
  modelErrorFromFailure,
  networkError,
  retryAfterMsOf,
  saysContextTooLong,
  timeoutError,
} from './model-error.js';
import type { AnthropicSdk } from './provider-sdk.js';

export interface AnthropicErrorContext {
  modelId: string;
  timeoutMs: number;
  /** The caller's signal: an abort it caused is `model.aborted`, whatever the SDK threw. */
  signal: AbortSignal | undefined;
  /** The loaded SDK, whose error classes the mapping checks against. */
  sdk: AnthropicSdk;
}

/** Maps anything the Anthropic SDK (or the stream under it) throws to a typed `RlmError`. */
export function fromAnthropicError(error: unknown, context: AnthropicErrorContext): RlmError {
  const { modelId, timeoutMs, signal } = context;
  const { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } =
    context.sdk;
  if (RlmError.is(error)) return error;
  if (signal?.aborted || error instanceof APIUserAbortError) return abortedError(modelId, signal);
  if (error instanceof APIConnectionTimeoutError) return timeoutError(modelId, timeoutMs, error);
  if (error instanceof APIConnectionError) return networkError(modelId, 'connection failed', error);
  if (error instanceof APIError) {
    const apiMessage = error.apiMessage ?? error.message;
    return modelErrorFromFailure({
      status: error.status,
      type: error.type ?? undefined,
      message: apiMessage,
      contextTooLong:
        (error.status === undefined || error.status === 400) && saysContextTooLong(apiMessage),
      retryAfterMs: retryAfterMsOf(error.headers),
      modelId,
      cause: error,
    });
  }
  // undici's "terminated" (socket closed mid-body), malformed events and the like.
  const reason = error instanceof Error ? error.message : String(error);
  return networkError(modelId, `stream failed: ${reason}`, error);
}
