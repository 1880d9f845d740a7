import { z } from 'zod';
import { tokenUsageSchema } from './usage.js';

/** One conversation message. The system prompt travels separately in `ModelRequest.system`. */
export const chatMessageSchema = z.object({
  role: z.enum(['user', 'assistant']),
  content: z.string(),
});
export type ChatMessage = z.infer<typeof chatMessageSchema>;

/** Why the model stopped: normalised across providers. */
export const stopReasonSchema = z.enum(['end_turn', 'max_tokens', 'stop_sequence', 'other']);
export type StopReason = z.infer<typeof stopReasonSchema>;

/** The serialisable part of a model request (what trajectories record). */
export const modelRequestSchema = z.object({
  system: z.string().optional(),
  messages: z.array(chatMessageSchema),
  maxTokens: z.number().int().positive().optional(),
  stop: z.array(z.string()).optional(),
});

/** A request to a language model; `signal` aborts the call (and its retries). */
export type ModelRequest = z.infer<typeof modelRequestSchema> & { signal?: AbortSignal };

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
  complete(request: ModelRequest): Promise<ModelResponse>;
}
