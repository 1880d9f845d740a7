import type { ContentBlockParam } from '@anthropic-ai/sdk/resources/messages';
import {
  type LanguageModel,
  type ModelPricing,
  type ModelRequest,
  type ModelResponse,
  parseSchema,
  RlmError,
  type TokenUsage,
} from '@rlm/protocol';
import { z } from 'zod';
import { fromAnthropicError } from './anthropic-error.js';
import { anthropicModelInfo, DEFAULT_ANTHROPIC_CONTEXT_WINDOW } from './anthropic-models.js';
import {
  type AnthropicEffort,
  type AnthropicThinking,
  anthropicEffortSchema,
  anthropicOutputCap,
  anthropicThinkingSchema,
  buildAnthropicParams,
  type CacheTtl,
  countCacheBreakpoints,
  hasOutputRoom,
  MAX_CACHE_BREAKPOINTS,
  type PromptCachingMode,
} from './anthropic-params.js';
import { type AnthropicReply, AnthropicReplyAccumulator } from './anthropic-reply.js';
import { combineReplies } from './anthropic-response.js';
import { abortedError, missingKeyError } from './model-error.js';
import { createModelLimiter, type ModelLimiter } from './model-limiter.js';
import { type AnthropicSdk, loadAnthropicSdk } from './provider-sdk.js';
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
/**
 * Requests one call may make to finish a turn the API paused (`pause_turn`), each resending the
 * paused response so the model goes on from it. A turn still paused after them ends as cut
 * (`max_tokens`).
 */
export const DEFAULT_MAX_PAUSE_CONTINUATIONS = 4;

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
  /**
   * Extended thinking, sent as `thinking`: `{ type: 'enabled', budgetTokens }` (at least 1024,
   * added on top of `maxTokens`) or `{ type: 'adaptive' }`. Thinking tokens are output tokens:
   * budgets reserve and charge them. Off when absent.
   */
  thinking?: AnthropicThinking;
  /** How much effort the model spends, sent as `output_config.effort`. The API's default when absent. */
  effort?: AnthropicEffort;
  /** @default DEFAULT_MAX_PAUSE_CONTINUATIONS */
  maxPauseContinuations?: number;
  /** A custom fetch (proxies, tests). */
  fetch?: typeof fetch;
}

const optionsSchema = z.looseObject({
  thinking: anthropicThinkingSchema.optional(),
  effort: anthropicEffortSchema.optional(),
  maxPauseContinuations: z.number().int().nonnegative().optional(),
});

/**
 * A `LanguageModel` on the official Anthropic SDK. Always streams (so large `max_tokens` never
 * trips the SDK's non-streaming guard), caches the growing conversation, reports usage with
 * cache reads and writes and the cost from `ANTHROPIC_MODELS`, and maps failures to `model.*`
 * errors. The SDK retries failures before headers; a stream that fails after headers with no
 * text yet is retried once more here (the SDK never does). Passes `thinking` and `effort`
 * through; a `refusal` stop is a `refusal` stop reason with the API's category and explanation;
 * a `pause_turn` stop is continued (the paused response sent back) until the turn ends.
 *
 * @throws RlmError `model.auth` at once when `apiKey` is missing or empty; `config.invalid` for
 *   a bad `thinking` or `effort`; from `complete`:
 *   `model.rate_limited`, `model.overloaded`, `model.context_too_long`, `model.auth`,
 *   `model.bad_request`, `model.not_found`, `model.server_error`, `model.network`, `model.timeout`,
 *   `model.aborted`.
 * @example
 * const model = anthropic({ model: 'claude-sonnet-5-5', apiKey: env.ANTHROPIC_API_KEY });
 * const { text, usage, costUsd } = await model.complete({ messages: [{ role: 'user', content: 'hi' }] });
 */
export function anthropic(options: AnthropicOptions): LanguageModel {
  parseSchema(optionsSchema, options, { what: 'anthropic options', code: 'config.invalid' });
  return anthropicClient(options);
}

function anthropicClient({
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
  thinking,
  effort,
  maxPauseContinuations = DEFAULT_MAX_PAUSE_CONTINUATIONS,
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
  // The SDK loads at the first request, so creating a model (or never using it) costs no import.
  let connection:
    | Promise<{ sdk: AnthropicSdk; client: InstanceType<AnthropicSdk['default']> }>
    | undefined;
  function connect(): Promise<{
    sdk: AnthropicSdk;
    client: InstanceType<AnthropicSdk['default']>;
  }> {
    connection ??= loadAnthropicSdk(id).then((sdk) => ({
      sdk,
      client: new sdk.default({
        apiKey,
        baseURL,
        maxRetries,
        timeout: timeoutMs,
        webhookKey: null,
        logLevel: 'off',
        ...(fetch === undefined ? {} : { fetch }),
      }),
    }));
    return connection;
  }

  async function streamOnce(
    request: ModelRequest,
    {
      state,
      earlier,
      failed,
      outputRoom,
    }: {
      state: AttemptState;
      earlier: readonly AnthropicReply[];
      /** Attempts of this turn that failed mid-stream: billed, so counted in its usage. */
      failed: AnthropicReply[];
      outputRoom: number | undefined;
    },
  ): Promise<AnthropicReply> {
    const continuation: ContentBlockParam[] = earlier.flatMap((reply) => reply.content);
    const params = buildAnthropicParams(request, {
      model,
      maxTokens,
      promptCaching,
      cacheTtl,
      thinking,
      effort,
      continuation,
      outputRoom,
    });
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
    const { sdk, client } = await connect();
    const context = { modelId: id, timeoutMs, signal: request.signal, sdk };
    const { data: stream, request_id: requestId } = await client.messages
      .create(params, { signal, timeout: timeoutMs, maxRetries })
      .withResponse()
      .catch((error: unknown) => {
        throw fromAnthropicError(error, context);
      });
    state.afterHeaders = true;
    const reply = new AnthropicReplyAccumulator();
    try {
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
            const before = failed.length === 0 ? earlier : [...failed, ...earlier];
            request.onUsage?.(addUsage(before, reply.usageSoFar()));
          }
        },
        isComplete: () => reply.stopped,
        missing: 'message_stop',
      });
    } catch (error) {
      const billed = reply.billedSoFar();
      if (
        billed.input_tokens +
          billed.output_tokens +
          billed.cache_read_input_tokens +
          billed.cache_creation_input_tokens >
        0
      ) {
        failed.push({ text: '', content: [], usage: billed, stopReason: null, refusal: null });
      }
      throw error;
    }
    return { ...reply.reply(), requestId: requestId ?? undefined };
  }

  /**
   * One turn: the first response, then continuations while the API pauses the turn. The turn's
   * output stays within the first request's cap (what budgets reserved for the call): each
   * continuation gets what the earlier responses left, and a turn with no room left ends as cut.
   */
  async function turn(request: ModelRequest): Promise<ModelResponse> {
    const cap = anthropicOutputCap(request.maxTokens ?? maxTokens, thinking);
    const replies: AnthropicReply[] = [];
    const failed: AnthropicReply[] = [];
    let outputRoom: number | undefined;
    while (true) {
      const earlier = [...replies];
      const room = outputRoom;
      const reply = await withStreamRetry(
        (state) => streamOnce(request, { state, earlier, failed, outputRoom: room }),
        { maxRetries, signal: request.signal },
      );
      replies.push(reply);
      outputRoom = cap - replies.reduce((sum, { usage }) => sum + usage.output_tokens, 0);
      if (
        reply.stopReason !== 'pause_turn' ||
        replies.length > maxPauseContinuations ||
        !hasOutputRoom(outputRoom, thinking)
      ) {
        // A retried attempt was billed too: its usage is part of the turn's.
        return combineReplies([...failed, ...replies], { id, price });
      }
    }
  }

  async function complete(request: ModelRequest): Promise<ModelResponse> {
    if (request.signal?.aborted) throw abortedError(id, request.signal);
    return queue.run(limiterKey, () => turn(request), request.signal);
  }

  return {
    id,
    contextWindow: contextWindow ?? known?.contextWindow ?? DEFAULT_ANTHROPIC_CONTEXT_WINDOW,
    // Thinking tokens are output tokens: an enabled budget is part of the worst case.
    maxOutputTokens: anthropicOutputCap(maxTokens, thinking),
    ...(price === undefined ? {} : { pricing: price }),
    complete,
  };
}

/** Usage of the earlier responses of a paused turn plus the one streaming now. */
function addUsage(earlier: readonly AnthropicReply[], now: TokenUsage): TokenUsage {
  return earlier.reduce(
    (sum, { usage }) => ({
      inputTokens: sum.inputTokens + usage.input_tokens,
      outputTokens: sum.outputTokens + usage.output_tokens,
      cacheReadTokens: sum.cacheReadTokens + usage.cache_read_input_tokens,
      cacheWriteTokens: sum.cacheWriteTokens + usage.cache_creation_input_tokens,
    }),
    now,
  );
}
