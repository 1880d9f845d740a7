import { z } from 'zod';
import type { ModelPricing } from './model-pricing.js';
import { type TokenUsage, tokenUsageSchema } from './usage.js';

/** One conversation message. The system prompt travels separately in `ModelRequest.system`. */
export const chatMessageSchema = z.object({
  role: z.enum(['user', 'assistant']),
  content: z.string(),
});
export type ChatMessage = z.infer<typeof chatMessageSchema>;

/**
 * Why the model stopped: normalised across providers. `refusal` is the provider declining to
 * answer (Anthropic's `refusal`, a content filter): the executor ends the call with `model.refused`.
 */
export const stopReasonSchema = z.enum([
  'end_turn',
  'max_tokens',
  'stop_sequence',
  'refusal',
  'other',
]);
export type StopReason = z.infer<typeof stopReasonSchema>;

/** The serialisable part of a model request (what trajectories record). */
export const modelRequestSchema = z.object({
  system: z.string().optional(),
  messages: z.array(chatMessageSchema),
  maxTokens: z.number().int().positive().optional(),
  stop: z.array(z.string()).optional(),
});

/** A request to a language model; `signal` aborts the call (and its retries). */
export type ModelRequest = z.infer<typeof modelRequestSchema> & {
  signal?: AbortSignal;
  /**
   * Who asks, for wrappers that treat calls differently (the sub-call cache answers only `sub`
   * calls, partitioned by `runId`); clients ignore it.
   */
  caller?: { purpose: 'root' | 'sub' | 'default_answer' | 'summary'; runId: string };
  /**
   * Told what the provider has reported so far while the call runs (input tokens when the
   * response starts, output as it streams), so a call aborted halfway can still be charged for
   * what it used. Optional for implementations.
   */
  onUsage?: (usage: TokenUsage) => void;
};

/** A reply served from the sub-call cache instead of the provider: it cost nothing. */
export const cacheHitSchema = z.object({
  /** The call's cache key (a hash of everything that changes the answer). */
  key: z.string(),
  /** The run whose call paid for the stored answer. */
  paidByRunId: z.string(),
  /** What the stored call cost when it was made (0 when its price was unknown). */
  savedCostUsd: z.number().nonnegative(),
  /** Its input + output tokens. */
  savedTokens: z.number().int().nonnegative(),
});
export type CacheHit = z.infer<typeof cacheHitSchema>;

export const modelResponseSchema = z.object({
  text: z.string(),
  usage: tokenUsageSchema,
  stopReason: stopReasonSchema,
  /** The provider's request id, when it sent one (for support tickets). */
  requestId: z.string().optional(),
  /** The model id that answered, as `provider/model`. */
  model: z.string(),
  /** Cost of this call in US dollars, from the client's pricing table; absent when unknown. */
  costUsd: z.number().nonnegative().optional(),
  /** What the provider said about a `refusal` stop, when it said anything. */
  refusal: z
    .object({
      /** The provider's policy category (Anthropic: `cyber`, `bio`, …), or null. */
      category: z.string().nullable(),
      explanation: z.string().nullable(),
    })
    .optional(),
  /** Set when the sub-call cache answered: `usage` is then zero and `costUsd` 0. */
  cache: cacheHitSchema.optional(),
});
export type ModelResponse = z.infer<typeof modelResponseSchema>;

/**
 * What the executor calls: one completion per request. Implementations retry transient
 * failures themselves and throw `RlmError` with a `model.*` code on permanent ones.
 */
export interface LanguageModel {
  /** `provider/model`, e.g. `anthropic/claude-sonnet-4-5`. */
  readonly id: string;
  /** Context window in tokens, when known (used for compaction and truncation). */
  readonly contextWindow?: number;
  /**
   * The most output tokens one call may produce (the `max_tokens` it is sent with, unless the
   * request sets `maxTokens`). Budgets reserve it before each call; when absent they assume
   * the executor's default.
   */
  readonly maxOutputTokens?: number;
  /**
   * The price of a call, when known: budgets reserve a call's worst-case cost from it. A
   * `maxCostUsd` budget on a model with neither `pricing` nor `reportsCost` is refused.
   */
  readonly pricing?: ModelPricing;
  /**
   * The provider states each call's cost in its response (OpenRouter), so `costUsd` is set
   * even without `pricing`; its worst case is unknown before the call.
   */
  readonly reportsCost?: boolean;
  /**
   * The sampling temperature the client sends with every call, when it sets one (absent: the
   * provider's default). The sub-call cache keys on it and leaves calls above 0 alone unless
   * told otherwise.
   */
  readonly temperature?: number;
  complete(request: ModelRequest): Promise<ModelResponse>;
}
