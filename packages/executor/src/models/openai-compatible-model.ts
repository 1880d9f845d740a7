import {
  costOfCall,
  type LanguageModel,
  type ModelPricing,
  type ModelRequest,
  type ModelResponse,
  type StopReason,
} from '@rlm/protocol';
import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import { DEFAULT_MODEL_MAX_RETRIES, DEFAULT_MODEL_TIMEOUT_MS } from './anthropic-model.js';
import { abortedError, missingKeyError } from './model-error.js';
import { createModelLimiter, type ModelLimiter } from './model-limiter.js';
import { fromOpenAIError } from './openai-error.js';
import { type OpenAIModelInfo, openaiModelInfo } from './openai-models.js';
import { loadOpenAISdk, type OpenAISdk } from './provider-sdk.js';
import { readModelStream } from './read-model-stream.js';
import { type AttemptState, withStreamRetry } from './stream-retry.js';

/** Output tokens asked for when the request does not say. */
export const DEFAULT_OPENAI_MAX_TOKENS = 16_000;
/** The context window assumed when neither the caller nor the server says. */
export const DEFAULT_OPENAI_CONTEXT_WINDOW = 128_000;

export interface OpenAICompatibleOptions {
  /** The server's base URL including `/v1`, e.g. `http://127.0.0.1:8000/v1` (vLLM). */
  baseURL: string;
  /** The model name the server knows. */
  model: string;
  /**
   * Sent as `Authorization: Bearer`; local servers usually ignore it. Required for OpenAI's and
   * OpenRouter's own endpoints (a missing key fails at once with `model.auth`).
   * @default 'not-needed' for other servers
   */
  apiKey?: string;
  /** The id prefix and limiter key: `openai`, `openrouter`, `vllm`, … @default 'openai-compatible' */
  provider?: string;
  /** @default DEFAULT_MODEL_MAX_RETRIES */
  maxRetries?: number;
  /** Per attempt: until headers, then between two stream chunks. @default DEFAULT_MODEL_TIMEOUT_MS */
  timeoutMs?: number;
  /** Calls at once through this client's own limiter (ignored when `limiter` is given). @default 8 */
  maxConcurrency?: number;
  /** A limiter shared by the run tree; calls queue under `provider`. */
  limiter?: ModelLimiter;
  /** @default DEFAULT_OPENAI_MAX_TOKENS */
  maxTokens?: number;
  /**
   * The body field for the output cap: OpenAI's newer models accept only
   * `max_completion_tokens`; most local servers read `max_tokens`.
   * @default 'max_completion_tokens' for provider 'openai', else 'max_tokens'
   */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /** @default the `OPENAI_MODELS` entry for provider 'openai', else DEFAULT_OPENAI_CONTEXT_WINDOW */
  contextWindow?: number;
  /**
   * Prices (USD per million tokens) for costs and cost budgets. Without them: the `OPENAI_MODELS`
   * table for provider `openai`; the cost the server reports in `usage.cost` (OpenRouter) when it
   * reports one; otherwise no cost, and a `maxCostUsd` budget is refused.
   */
  pricing?: ModelPricing;
  /** Extra request headers (e.g. OpenRouter's `HTTP-Referer`). */
  headers?: Readonly<Record<string, string>>;
  fetch?: typeof fetch;
}

/**
 * A `LanguageModel` for any OpenAI-compatible Chat Completions server (OpenAI, OpenRouter, vLLM,
 * Ollama, llama.cpp) on the official openai SDK. Always streams with `include_usage`, maps
 * failures to `model.*` errors, and retries once a stream that fails after headers with no text.
 * Usage follows the same convention as `anthropic()`: `inputTokens` excludes cached tokens,
 * which are reported as `cacheReadTokens`.
 *
 * @throws RlmError `model.auth` at once for OpenAI's or OpenRouter's endpoint without `apiKey`;
 *   from `complete`, `model.*` codes as `anthropic()` does.
 * @example
 * const model = openaiCompatible({ baseURL: 'http://127.0.0.1:11434/v1', model: 'qwen3:8b' });
 */
export function openaiCompatible({
  baseURL,
  model,
  apiKey,
  provider = 'openai-compatible',
  maxRetries = DEFAULT_MODEL_MAX_RETRIES,
  timeoutMs = DEFAULT_MODEL_TIMEOUT_MS,
  maxConcurrency,
  limiter,
  maxTokens = DEFAULT_OPENAI_MAX_TOKENS,
  maxTokensField = provider === 'openai' ? 'max_completion_tokens' : 'max_tokens',
  contextWindow,
  pricing,
  headers,
  fetch,
}: OpenAICompatibleOptions): LanguageModel {
  const id = `${provider}/${model}`;
  const { known, reportsCost } = endpointFacts({ id, provider, baseURL, model, apiKey });
  const price = pricing ?? known?.pricing;
  const queue =
    limiter ??
    createModelLimiter(
      maxConcurrency === undefined ? {} : { limits: { [provider]: maxConcurrency } },
    );
  // Every option is explicit so the SDK reads no environment variable (packages never do).
  // The SDK loads at the first request, so creating a model (or never using it) costs no import.
  let connection:
    | Promise<{ sdk: OpenAISdk; client: InstanceType<OpenAISdk['default']> }>
    | undefined;
  function connect(): Promise<{ sdk: OpenAISdk; client: InstanceType<OpenAISdk['default']> }> {
    connection ??= loadOpenAISdk(id).then((sdk) => ({
      sdk,
      client: new sdk.default({
        apiKey: apiKey ?? 'not-needed',
        baseURL,
        organization: null,
        project: null,
        webhookSecret: null,
        maxRetries,
        timeout: timeoutMs,
        logLevel: 'off',
        ...(headers === undefined ? {} : { defaultHeaders: headers }),
        ...(fetch === undefined ? {} : { fetch }),
      }),
    }));
    return connection;
  }

  async function streamOnce(request: ModelRequest, state: AttemptState): Promise<ModelResponse> {
    const idle = new AbortController();
    const signal =
      request.signal === undefined ? idle.signal : AbortSignal.any([request.signal, idle.signal]);
    const { sdk, client } = await connect();
    const context = { modelId: id, timeoutMs, signal: request.signal, sdk };
    const { data: stream, request_id: requestId } = await client.chat.completions
      .create(buildParams(request, { model, maxTokens, maxTokensField }), {
        signal,
        timeout: timeoutMs,
        maxRetries,
      })
      .withResponse()
      .catch((error: unknown) => {
        throw fromOpenAIError(error, context);
      });
    state.afterHeaders = true;
    const reply = new ChunkAccumulator();
    await readModelStream(stream, {
      modelId: id,
      idle,
      idleMs: timeoutMs,
      signal: request.signal,
      toError: (error) => fromOpenAIError(error, context),
      onEvent: (chunk) => {
        reply.add(chunk);
        if (reply.hasText) state.textDelivered = true;
      },
      isComplete: () => reply.finished,
      missing: 'a finish_reason',
    });
    return reply.toResponse({ id, requestId, pricing: price });
  }

  async function complete(request: ModelRequest): Promise<ModelResponse> {
    if (request.signal?.aborted) throw abortedError(id, request.signal);
    return queue.run(
      provider,
      () =>
        withStreamRetry((state) => streamOnce(request, state), {
          maxRetries,
          signal: request.signal,
        }),
      request.signal,
    );
  }

  return {
    id,
    contextWindow: contextWindow ?? known?.contextWindow ?? DEFAULT_OPENAI_CONTEXT_WINDOW,
    maxOutputTokens: maxTokens,
    ...(price === undefined ? {} : { pricing: price }),
    ...(reportsCost ? { reportsCost } : {}),
    complete,
  };
}

/** Hosts whose servers refuse requests without a key, with the variable apps read it from. */
const KEY_VARIABLES: Readonly<Record<string, string>> = {
  'api.openai.com': 'OPENAI_API_KEY',
  'openrouter.ai': 'OPENROUTER_API_KEY',
};

/**
 * What the endpoint implies: OpenAI's own models have list prices, OpenRouter reports each call's
 * cost, and both refuse requests without a key (checked here, before any request).
 */
function endpointFacts({
  id,
  provider,
  baseURL,
  model,
  apiKey,
}: {
  id: string;
  provider: string;
  baseURL: string;
  model: string;
  apiKey: string | undefined;
}): { known: OpenAIModelInfo | undefined; reportsCost: boolean } {
  const host = hostOf(baseURL);
  const variable = KEY_VARIABLES[host];
  if (variable !== undefined && (apiKey === undefined || apiKey.trim() === '')) {
    throw missingKeyError({ modelId: id, variable });
  }
  return {
    known: provider === 'openai' || host === 'api.openai.com' ? openaiModelInfo(model) : undefined,
    reportsCost: provider === 'openrouter' || host === 'openrouter.ai',
  };
}

function hostOf(baseURL: string): string {
  try {
    return new URL(baseURL).hostname;
  } catch {
    return '';
  }
}

function buildParams(
  request: ModelRequest,
  {
    model,
    maxTokens,
    maxTokensField,
  }: { model: string; maxTokens: number; maxTokensField: 'max_tokens' | 'max_completion_tokens' },
): ChatCompletionCreateParamsStreaming {
  const messages: ChatCompletionMessageParam[] = [];
  if (request.system !== undefined && request.system !== '') {
    messages.push({ role: 'system', content: request.system });
  }
  for (const message of request.messages)
    messages.push({ role: message.role, content: message.content });
  return {
    model,
    messages,
    [maxTokensField]: request.maxTokens ?? maxTokens,
    ...(request.stop === undefined || request.stop.length === 0 ? {} : { stop: request.stop }),
    stream: true,
    stream_options: { include_usage: true },
  };
}

const FINISH_REASONS: Readonly<Record<string, StopReason>> = {
  stop: 'end_turn',
  length: 'max_tokens',
  // The provider's content filter stopped the reply: a refusal, not a normal end.
  content_filter: 'refusal',
};

/** Folds chunks into the final text, finish reason and usage. */
class ChunkAccumulator {
  hasText = false;
  finished = false;
  private parts: string[] = [];
  private finishReason: StopReason = 'other';
  private usage: ChatCompletionChunk['usage'] = undefined;

  add(chunk: ChatCompletionChunk): void {
    // Some servers send `choices: null` or leave it out on the usage chunk.
    for (const choice of chunk.choices ?? []) {
      const content = choice.delta?.content;
      if (typeof content === 'string' && content !== '') {
        this.parts.push(content);
        this.hasText = true;
      }
      if (choice.finish_reason) {
        this.finished = true;
        this.finishReason = FINISH_REASONS[choice.finish_reason] ?? 'other';
      }
    }
    if (chunk.usage) this.usage = chunk.usage;
  }

  toResponse({
    id,
    requestId,
    pricing,
  }: {
    id: string;
    requestId: string | null | undefined;
    pricing: ModelPricing | undefined;
  }): ModelResponse {
    const text = this.parts.join('');
    const cached = this.usage?.prompt_tokens_details?.cached_tokens ?? 0;
    const inputTokens = Math.max(0, (this.usage?.prompt_tokens ?? 0) - cached);
    const outputTokens = this.usage?.completion_tokens ?? 0;
    // OpenRouter states what the call was billed (`usage.cost`, in USD credits): it wins over
    // a computed estimate.
    const reported = (this.usage as { cost?: unknown } | null | undefined)?.cost;
    const costUsd =
      typeof reported === 'number' && Number.isFinite(reported) && reported >= 0
        ? reported
        : pricing === undefined || this.usage == null
          ? undefined
          : costOfCall(pricing, {
              inputTokens,
              outputTokens,
              cacheReadTokens: cached,
              cacheWrite5mTokens: 0,
              cacheWrite1hTokens: 0,
            });
    return {
      text,
      usage: { inputTokens, outputTokens, cacheReadTokens: cached, cacheWriteTokens: 0 },
      stopReason: this.finishReason,
      // The requested id, not the served snapshot name, so usage adds up per configured model.
      model: id,
      ...(requestId ? { requestId } : {}),
      ...(costUsd === undefined ? {} : { costUsd }),
    };
  }
}
