import { RlmError } from '@rlm/protocol';
import {
  abortedError,
  modelErrorFromFailure,
  networkError,
  retryAfterMsOf,
  saysContextTooLong,
  timeoutError,
} from './model-error.js';
import type { OpenAISdk } from './provider-sdk.js';

export interface OpenAIErrorContext {
  modelId: string;
  timeoutMs: number;
  signal: AbortSignal | undefined;
  /** The loaded SDK, whose error classes the mapping checks against. */
  sdk: OpenAISdk;
}

/**
 * Maps anything the openai SDK throws to a typed `RlmError`. Local servers disagree on error
 * shapes (vLLM's `BadRequestError`, llama.cpp's `exceed_context_size_error`, Ollama's bare string),
 * so the context-window check looks at the code, the type and the provider's message.
 */
export function fromOpenAIError(error: unknown, context: OpenAIErrorContext): RlmError {
  const { modelId, timeoutMs, signal } = context;
  const { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } =
    context.sdk;
  if (RlmError.is(error)) return error;
  if (signal?.aborted || error instanceof APIUserAbortError) return abortedError(modelId, signal);
  if (error instanceof APIConnectionTimeoutError) return timeoutError(modelId, timeoutMs, error);
  if (error instanceof APIConnectionError) return networkError(modelId, 'connection failed', error);
  if (error instanceof APIError) {
    const code = error.code === null || error.code === undefined ? undefined : String(error.code);
    const type = error.type ?? undefined;
    return modelErrorFromFailure({
      status: error.status,
      type: code ?? type,
      message: error.message,
      contextTooLong:
        (error.status === undefined || error.status === 400 || error.status === 413) &&
        saysContextTooLong(code, type, error.message),
      retryAfterMs: retryAfterMsOf(error.headers),
      modelId,
      cause: error,
    });
  }
  const reason = error instanceof Error ? error.message : String(error);
  return networkError(modelId, `stream failed: ${reason}`, error);
}
