import Anthropic from '@anthropic-ai/sdk';
import type { MessageDeltaUsage, Usage } from '@anthropic-ai/sdk/resources/messages';
import {
  costOfCall,
  type LanguageModel,
  type ModelPricing,
  type ModelRequest,
  type ModelResponse,
  RlmError,
  type StopReason,
  type TokenUsage,
} from '@rlm/protocol';
import { fromAnthropicError } from './anthropic-error.js';
import { anthropicModelInfo, DEFAULT_ANTHROPIC_CONTEXT_WINDOW } from './anthropic-models.js';
import {
  buildAnthropicParams,
  type CacheTtl,
  countCacheBreakpoints,
  MAX_CACHE_BREAKPOINTS,
  type PromptCachingMode,
} from './anthropic-params.js';
import { abortedError, missingKeyError } from './model-error.js';
import { createModelLimiter, type ModelLimiter } from './model-limiter.js';
import { readModelStream } from './read-model-stream.js';
import { type AttemptState, withStreamRetry } from './stream-retry.js';

/** The Anthropic API base URL (the SDK appends `/v1/messages`). */
export const DEFAULT_ANTHROPIC_BASE_URL = 'https://api.anthropic.com';
/** Output tokens asked for when the request does not say. */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 16_000;
/** Per-attempt timeout: until response headers, then between two stream events. */
export const DEFAULT_MODEL_TIMEOUT_MS = 600_000;
/** SDK retries of failed requests before headers (429, 5xx, 529, connection errors). */
export const DEFAULT_MODEL_MAX_RETRIES = 2;

export interface AnthropicOptions {
  /** The Claude model id, e.g. `claude-sonnet-5-5`. */
  model: string;
  /**
   * The API key (sent as `Authorization: Bearer` by SDK 1.x). Apps read it from
   * `ANTHROPIC_API_KEY`; a missing or empty key fails at once with `model.auth`.
   */
  apiKey: string;
  /** @default DEFAULT_ANTHROPIC_BASE_URL */
  baseURL?: string;
  /** @default DEFAULT_MODEL_MAX_RETRIES */
  maxRetries?: number;
  /** @default DEFAULT_MODEL_TIMEOUT_MS */
  timeoutMs?: number;
  /** @default 'auto' */
  promptCaching?: PromptCachingMode;
  /** Lifetime of cache entries; `1h` suits turns more than 5 minutes apart. @default '5m' */
  cacheTtl?: CacheTtl;
  /** Calls at once through this client's own limiter (ignored when `limiter` is given). @default 8 */
  maxConcurrency?: number;
  /** A limiter shared by the run tree; calls queue under `limiterKey`. */
  limiter?: ModelLimiter;
  /** @default 'anthropic' */
  limiterKey?: string;
  /** @default DEFAULT_ANTHROPIC_MAX_TOKENS */
  maxTokens?: number;
  /** Overrides the known context window of the model. */
  contextWindow?: number;
  /** Overrides the price table entry of the model (needed for models missing from it). */
  pricing?: ModelPricing;
  /** A custom fetch (proxies, tests). */
  fetch?: typeof fetch;
}

/**
 * A `LanguageModel` on the official Anthropic SDK. Always streams (so large `max_tokens` never
 * trips the SDK's non-streaming guard), caches the growing conversation, reports usage with
 * cache reads and writes and the cost from `ANTHROPIC_MODELS`, and maps failures to `model.*`
 * errors. The SDK retries failures before headers; a stream that fails after headers with no
 * text yet is retried once more here (the SDK never does).
 *
 * @throws RlmError `model.auth` at once when `apiKey` is missing or empty; from `complete`:
 *   `model.rate_limited`, `model.overloaded`, `model.context_too_long`, `model.auth`,
 *   `model.bad_request`, `model.not_found`, `model.server_error`, `model.network`, `model.timeout`,
 *   `model.aborted`.
 * @example
 * const model = anthropic({ model: 'claude-sonnet-5-5', apiKey: env.ANTHROPIC_API_KEY });
 * const { text, usage, costUsd } = await model.complete({ messages: [{ role: 'user', content: 'hi' }] });
 */
export function anthropic({
  model,
  apiKey,
  baseURL = DEFAULT_ANTHROPIC_BASE_URL,
  maxRetries = DEFAULT_MODEL_MAX_RETRIES,
  timeoutMs = DEFAULT_MODEL_TIMEOUT_MS,
  promptCaching = 'auto',
  cacheTtl = '5m',
  maxConcurrency,
  limiter,
  limiterKey = 'anthropic',
  maxTokens = DEFAULT_ANTHROPIC_MAX_TOKENS,
  contextWindow,
  pricing,
  fetch,
}: AnthropicOptions): LanguageModel {
  const id = `anthropic/${model}`;
  // The SDK would only notice at the first request, as a confusing network-level error.
  if (typeof apiKey !== 'string' || apiKey.trim() === '') {
    throw missingKeyError({ modelId: id, variable: 'ANTHROPIC_API_KEY' });
  }
  const known = anthropicModelInfo(model);
  const price = pricing ?? known?.pricing;
  const queue =
    limiter ??
    createModelLimiter(
      maxConcurrency === undefined ? {} : { limits: { [limiterKey]: maxConcurrency } },
    );
  // Every option is explicit so the SDK reads no environment variable (packages never do).
  const client = new Anthropic({
    apiKey,
    baseURL,
    maxRetries,
    timeout: timeoutMs,
    webhookKey: null,
    logLevel: 'off',
    ...(fetch === undefined ? {} : { fetch }),
  });

  async function streamOnce(request: ModelRequest, state: AttemptState): Promise<ModelResponse> {
    const params = buildAnthropicParams(request, { model, maxTokens, promptCaching, cacheTtl });
    if (countCacheBreakpoints(params) > MAX_CACHE_BREAKPOINTS) {
      throw new RlmError({
        code: 'model.bad_request',
        message: `${id}: more than ${MAX_CACHE_BREAKPOINTS} cache breakpoints (a bug in the client)`,
        details: { status: 400 },
      });
    }
    const idle = new AbortController();
    const signal =
      request.signal === undefined ? idle.signal : AbortSignal.any([request.signal, idle.signal]);
    const context = { modelId: id, timeoutMs, signal: request.signal };
    const { data: stream, request_id: requestId } = await client.messages
      .create(params, { signal, timeout: timeoutMs, maxRetries })
      .withResponse()
      .catch((error: unknown) => {
        throw fromAnthropicError(error, context);
      });
    state.afterHeaders = true;
    const reply = new ReplyAccumulator();
    await readModelStream(stream, {
      modelId: id,
      idle,
      idleMs: timeoutMs,
      signal: request.signal,
      toError: (error) => fromAnthropicError(error, context),
      onEvent: (event) => {
        reply.add(event);
        if (reply.hasText) state.textDelivered = true;
        if (event.type === 'message_start' || event.type === 'content_block_delta') {
          request.onUsage?.(reply.usageSoFar());
        }
      },
      isComplete: () => reply.stopped,
      missing: 'message_stop',
    });
    return reply.toResponse({ id, requestId, price });
  }

  async function complete(request: ModelRequest): Promise<ModelResponse> {
    if (request.signal?.aborted) throw abortedError(id, request.signal);
    return queue.run(
      limiterKey,
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
    contextWindow: contextWindow ?? known?.contextWindow ?? DEFAULT_ANTHROPIC_CONTEXT_WINDOW,
    maxOutputTokens: maxTokens,
    ...(price === undefined ? {} : { pricing: price }),
    complete,
  };
}

const STOP_REASONS: Readonly<Record<string, StopReason>> = {
  end_turn: 'end_turn',
  max_tokens: 'max_tokens',
  stop_sequence: 'stop_sequence',
  // The window filled up while generating: like max_tokens, the output was cut.
  model_context_window_exceeded: 'max_tokens',
};

/** Folds stream events into the final text, stop reason and usage. */
class ReplyAccumulator {
  hasText = false;
  stopped = false;
  private stopReason: StopReason = 'other';
  private usage = {
    input_tokens: 0,
    output_tokens: 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    ephemeral_1h_input_tokens: 0,
  };
  private textBlocks = new Map<number, string>();
  private streamedChars = 0;

  /**
   * Usage as far as the stream has told: input (with cache) from `message_start`, output as the
   * larger of what was reported and an estimate of the text streamed so far (4 characters a token).
   */
  usageSoFar(): TokenUsage {
    return {
      inputTokens: this.usage.input_tokens,
      outputTokens: Math.max(this.usage.output_tokens, Math.ceil(this.streamedChars / 4)),
      cacheReadTokens: this.usage.cache_read_input_tokens,
      cacheWriteTokens: this.usage.cache_creation_input_tokens,
    };
  }

  add(event: Anthropic.MessageStreamEvent): void {
    switch (event.type) {
      case 'message_start':
        this.mergeUsage(event.message.usage);
        break;
      case 'content_block_delta':
        if (event.delta.type === 'text_delta') {
          this.textBlocks.set(
            event.index,
            (this.textBlocks.get(event.index) ?? '') + event.delta.text,
          );
          this.streamedChars += event.delta.text.length;
          if (event.delta.text !== '') this.hasText = true;
        }
        break;
      case 'message_delta':
        this.stopReason = STOP_REASONS[event.delta.stop_reason ?? ''] ?? 'other';
        this.mergeUsage(event.usage);
        break;
      case 'message_stop':
        this.stopped = true;
        break;
      default:
        break;
    }
  }

  // message_delta usage values are cumulative totals: overwrite, never add.
  private mergeUsage(usage: Usage | MessageDeltaUsage): void {
    if (usage.input_tokens != null) this.usage.input_tokens = usage.input_tokens;
    if (usage.output_tokens != null) this.usage.output_tokens = usage.output_tokens;
    if (usage.cache_creation_input_tokens != null) {
      this.usage.cache_creation_input_tokens = usage.cache_creation_input_tokens;
    }
    if (usage.cache_read_input_tokens != null) {
      this.usage.cache_read_input_tokens = usage.cache_read_input_tokens;
    }
    const split = 'cache_creation' in usage ? usage.cache_creation : undefined;
    if (split != null) this.usage.ephemeral_1h_input_tokens = split.ephemeral_1h_input_tokens;
  }

  toResponse({
    id,
    requestId,
    price,
  }: {
    id: string;
    requestId: string | null | undefined;
    price: ModelPricing | undefined;
  }): ModelResponse {
    const usage = this.usage;
    const write1h = Math.min(usage.ephemeral_1h_input_tokens, usage.cache_creation_input_tokens);
    const costUsd =
      price === undefined
        ? undefined
        : costOfCall(price, {
            inputTokens: usage.input_tokens,
            outputTokens: usage.output_tokens,
            cacheReadTokens: usage.cache_read_input_tokens,
            cacheWrite5mTokens: usage.cache_creation_input_tokens - write1h,
            cacheWrite1hTokens: write1h,
          });
    // Text blocks are joined in index order with no separator, so code fences survive intact.
    const text = [...this.textBlocks.entries()]
      .sort(([left], [right]) => left - right)
      .map(([, block]) => block)
      .join('');
    return {
      text,
      usage: {
        inputTokens: usage.input_tokens,
        outputTokens: usage.output_tokens,
        cacheReadTokens: usage.cache_read_input_tokens,
        cacheWriteTokens: usage.cache_creation_input_tokens,
      },
      stopReason: this.stopReason,
      // The requested id, not the served snapshot name, so usage adds up per configured model.
      model: id,
      ...(requestId ? { requestId } : {}),
      ...(costUsd === undefined ? {} : { costUsd }),
    };
  }
}
