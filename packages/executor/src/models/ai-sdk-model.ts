import type {
  LanguageModelV2,
  LanguageModelV2CallOptions,
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3StreamResult,
  SharedV3ProviderOptions,
} from '@ai-sdk/provider';
import {
  type LanguageModel,
  type ModelPricing,
  type ModelRequest,
  type ModelResponse,
  modelPricingSchema,
  parseSchema,
  RlmError,
} from '@rlm/protocol';
import { z } from 'zod';
import { fromAISDKError } from './ai-sdk-error.js';
import { aiSdkPrompt } from './ai-sdk-prompt.js';
import { AISDKReplyAccumulator, type AISDKStreamPart } from './ai-sdk-reply.js';
import { DEFAULT_MODEL_MAX_RETRIES, DEFAULT_MODEL_TIMEOUT_MS } from './anthropic-model.js';
import { abortedError } from './model-error.js';
import { createModelLimiter, type ModelLimiter } from './model-limiter.js';
import { readModelStream } from './read-model-stream.js';
import { type RetryAttemptState, retryTransient } from './retry-transient.js';

/**
 * A specification version 4 model (`@ai-sdk/provider` 4.x, `ai` 7, Node 22+), as far as this
 * adapter uses it: the same call options and the same `finish` usage as version 3, plus stream
 * parts it ignores. Declared here because the provider types it runs with on Node 20 (3.x) lack it.
 */
export interface LanguageModelV4Like {
  readonly specificationVersion: 'v4';
  readonly provider: string;
  readonly modelId: string;
  doStream(options: LanguageModelV3CallOptions): PromiseLike<{ stream: ReadableStream<unknown> }>;
}

/** A Vercel AI SDK language model: specification version 2 (`ai` 5), 3 (`ai` 6) or 4 (`ai` 7). */
export type AISDKLanguageModel = LanguageModelV2 | LanguageModelV3 | LanguageModelV4Like;

/** Output tokens asked for when the request does not say. */
export const DEFAULT_AI_SDK_MAX_TOKENS = 16_000;

export interface FromAISDKOptions {
  /**
   * Our id for the model, `provider/model`.
   * @default `<provider>/<modelId>`, the provider name up to its first dot (`openai.chat` → `openai`)
   */
  id?: string;
  /**
   * Output tokens each call may produce, sent as `maxOutputTokens` and reserved by budgets. Keep
   * it within the model's own output limit, or the provider refuses the call.
   * @default DEFAULT_AI_SDK_MAX_TOKENS
   */
  maxTokens?: number;
  /** The model's context window in tokens (for compaction); unknown when absent. */
  contextWindow?: number;
  /**
   * USD per million tokens, for costs and cost budgets. Without it calls have no cost and a
   * `maxCostUsd` budget is refused at `createRLM`.
   */
  pricing?: ModelPricing;
  /**
   * Retries of a retryable failure before any text (429, 5xx, connection errors): AI SDK
   * provider packages do not retry by themselves. @default DEFAULT_MODEL_MAX_RETRIES
   */
  maxRetries?: number;
  /** Longest wait for the response to start, then between two stream parts. @default DEFAULT_MODEL_TIMEOUT_MS */
  timeoutMs?: number;
  /** Provider-specific options passed through to every call (`{ google: { … } }`). */
  providerOptions?: SharedV3ProviderOptions;
  /** Extra request headers. */
  headers?: Readonly<Record<string, string>>;
  /** Calls at once through this client's own limiter (ignored when `limiter` is given). @default 8 */
  maxConcurrency?: number;
  /** A limiter shared by the run tree; calls queue under `limiterKey`. */
  limiter?: ModelLimiter;
  /** @default the provider part of `id` */
  limiterKey?: string;
}

const positiveInt = z.number().int().positive();
const optionsSchema = z.looseObject({
  id: z
    .string()
    .regex(/^[^/\s]+\/\S+$/, 'expected `provider/model`')
    .optional(),
  maxTokens: positiveInt.optional(),
  contextWindow: positiveInt.optional(),
  pricing: modelPricingSchema.optional(),
  maxRetries: z.number().int().nonnegative().optional(),
  timeoutMs: positiveInt.optional(),
  maxConcurrency: positiveInt.optional(),
});

/**
 * Adapts a Vercel AI SDK language model (`@ai-sdk/google`, `@ai-sdk/openai`,
 * `@ai-sdk/amazon-bedrock`, `@ai-sdk/mistral`, …; specification version 2, 3 or 4) to our
 * `LanguageModel`. Every call streams (`doStream`) and passes the caller's signal as the
 * provider's `abortSignal`; usage comes from the `finish` part with cache reads and writes; the
 * cost from `pricing`. Failures map to `model.*` codes (see `fromAISDKError`), and retryable ones
 * are retried before any text arrived.
 *
 * The provider package reads its key when the first call is made, so a missing key surfaces then,
 * as `model.auth`.
 *
 * @throws RlmError `config.invalid` for a model that is not an AI SDK language model, or bad
 *   options; from `complete`: `model.rate_limited`, `model.overloaded`, `model.context_too_long`,
 *   `model.auth`, `model.bad_request`, `model.not_found`, `model.server_error`, `model.network`,
 *   `model.timeout`, `model.aborted`.
 * @example
 * import { google } from '@ai-sdk/google';
 * const model = fromAISDK(google('gemini-2.5-flash'), {
 *   maxTokens: 8_192,
 *   pricing: { inputPerMTok: 0.3, outputPerMTok: 2.5 },
 * });
 */
export function fromAISDK(
  model: AISDKLanguageModel,
  options: FromAISDKOptions = {},
): LanguageModel {
  checkModel(model);
  parseSchema(optionsSchema, options, { what: 'fromAISDK options', code: 'config.invalid' });
  const {
    id = `${model.provider.split('.')[0]}/${model.modelId}`,
    maxTokens = DEFAULT_AI_SDK_MAX_TOKENS,
    contextWindow,
    pricing,
    maxRetries = DEFAULT_MODEL_MAX_RETRIES,
    timeoutMs = DEFAULT_MODEL_TIMEOUT_MS,
    providerOptions,
    headers,
    maxConcurrency,
    limiter,
    limiterKey = id.slice(0, id.indexOf('/')),
  } = options;
  const queue =
    limiter ??
    createModelLimiter(
      maxConcurrency === undefined ? {} : { limits: { [limiterKey]: maxConcurrency } },
    );

  function callOptions(request: ModelRequest, signal: AbortSignal): LanguageModelV3CallOptions {
    return {
      prompt: aiSdkPrompt(request),
      maxOutputTokens: request.maxTokens ?? maxTokens,
      ...(request.stop === undefined || request.stop.length === 0
        ? {}
        : { stopSequences: [...request.stop] }),
      abortSignal: signal,
      ...(headers === undefined ? {} : { headers: { ...headers } }),
      ...(providerOptions === undefined ? {} : { providerOptions }),
    };
  }

  async function startStream(
    request: ModelRequest,
    signal: AbortSignal,
  ): Promise<ReadableStream<AISDKStreamPart>> {
    const call = callOptions(request, signal);
    // The three versions take the same call options for what is sent here.
    const result: { stream: ReadableStream<unknown> } =
      model.specificationVersion === 'v2'
        ? ((await model.doStream(
            call as LanguageModelV2CallOptions,
          )) as unknown as LanguageModelV3StreamResult)
        : await model.doStream(call);
    return result.stream as ReadableStream<AISDKStreamPart>;
  }

  async function streamOnce(
    request: ModelRequest,
    state: RetryAttemptState,
  ): Promise<ModelResponse> {
    if (request.signal?.aborted) throw abortedError(id, request.signal);
    const idle = new AbortController();
    const signal =
      request.signal === undefined ? idle.signal : AbortSignal.any([request.signal, idle.signal]);
    const context = { modelId: id, timeoutMs, signal: request.signal };
    // The provider has no timeout of its own: the same idle limit covers the wait for headers.
    const waiting = setTimeout(() => idle.abort(), timeoutMs);
    let stream: ReadableStream<AISDKStreamPart>;
    try {
      stream = await startStream(request, signal);
    } catch (error) {
      if (idle.signal.aborted && !request.signal?.aborted) {
        throw fromAISDKError(
          Object.assign(new Error('no response'), { name: 'TimeoutError' }),
          context,
        );
      }
      throw fromAISDKError(error, context);
    } finally {
      clearTimeout(waiting);
    }
    const reply = new AISDKReplyAccumulator();
    await readModelStream(partsOf(stream), {
      modelId: id,
      idle,
      idleMs: timeoutMs,
      signal: request.signal,
      toError: (error) => fromAISDKError(error, context),
      onEvent: (part) => {
        const usage = reply.add(part);
        if (reply.hasText) state.textDelivered = true;
        if (usage !== undefined) request.onUsage?.(usage);
      },
      // An `error` part ends the call too: stop reading and throw it below.
      isComplete: () => reply.finished || reply.error !== undefined,
      missing: 'its finish part',
    });
    if (reply.error !== undefined) throw fromAISDKError(reply.error.value, context);
    return reply.toResponse({ id, pricing });
  }

  async function complete(request: ModelRequest): Promise<ModelResponse> {
    if (request.signal?.aborted) throw abortedError(id, request.signal);
    return queue.run(
      limiterKey,
      () =>
        retryTransient((state) => streamOnce(request, state), {
          maxRetries,
          signal: request.signal,
        }),
      request.signal,
    );
  }

  return {
    id,
    maxOutputTokens: maxTokens,
    ...(contextWindow === undefined ? {} : { contextWindow }),
    ...(pricing === undefined ? {} : { pricing }),
    complete,
  };
}

/** True for an object shaped like an AI SDK language model of a version this adapter reads. */
export function isAISDKLanguageModel(value: unknown): value is AISDKLanguageModel {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<AISDKLanguageModel>;
  return (
    (candidate.specificationVersion === 'v2' ||
      candidate.specificationVersion === 'v3' ||
      candidate.specificationVersion === 'v4') &&
    typeof candidate.provider === 'string' &&
    typeof candidate.modelId === 'string' &&
    typeof candidate.doStream === 'function'
  );
}

function checkModel(model: unknown): void {
  if (isAISDKLanguageModel(model)) return;
  const version =
    typeof model === 'object' && model !== null
      ? (model as { specificationVersion?: unknown }).specificationVersion
      : undefined;
  const problem =
    version === undefined
      ? 'expected an AI SDK language model (with specificationVersion, provider, modelId and doStream)'
      : `specificationVersion ${JSON.stringify(version)} is not supported: expected 'v2' (ai 5), 'v3' (ai 6) or 'v4' (ai 7)`;
  throw new RlmError({
    code: 'config.invalid',
    message: `fromAISDK: ${problem}`,
    details: { source: 'fromAISDK model', issues: [`model: ${problem}`] },
  });
}

/** Reads a web stream part by part; leaving early cancels it (and the request under it). */
async function* partsOf<TPart>(stream: ReadableStream<TPart>): AsyncGenerator<TPart> {
  const reader = stream.getReader();
  let done = false;
  try {
    while (true) {
      const next = await reader.read();
      if (next.done) {
        done = true;
        return;
      }
      yield next.value;
    }
  } finally {
    if (!done) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
