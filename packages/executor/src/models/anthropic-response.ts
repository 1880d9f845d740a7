import { costOfCall, type ModelPricing, type ModelResponse, type StopReason } from '@rlm/protocol';
import type { AnthropicReply } from './anthropic-reply.js';

const STOP_REASONS: Readonly<Record<string, StopReason>> = {
  end_turn: 'end_turn',
  max_tokens: 'max_tokens',
  stop_sequence: 'stop_sequence',
  refusal: 'refusal',
  // The window filled up while generating: like max_tokens, the output was cut.
  model_context_window_exceeded: 'max_tokens',
  // Still paused after every continuation allowed: the turn was cut short.
  pause_turn: 'max_tokens',
};

/**
 * One `ModelResponse` from the responses of a turn (several when the API paused it): their text
 * in order, their usage and cost added up (each priced on its own: a long-prompt band applies per
 * request), and the last one's stop reason, refusal and request id.
 */
export function combineReplies(
  replies: readonly AnthropicReply[],
  { id, price }: { id: string; price: ModelPricing | undefined },
): ModelResponse {
  const last = replies.at(-1);
  let inputTokens = 0;
  let outputTokens = 0;
  let cacheReadTokens = 0;
  let cacheWriteTokens = 0;
  let costUsd = 0;
  for (const { usage } of replies) {
    inputTokens += usage.input_tokens;
    outputTokens += usage.output_tokens;
    cacheReadTokens += usage.cache_read_input_tokens;
    cacheWriteTokens += usage.cache_creation_input_tokens;
    if (price === undefined) continue;
    const write1h = Math.min(usage.ephemeral_1h_input_tokens, usage.cache_creation_input_tokens);
    costUsd += costOfCall(price, {
      inputTokens: usage.input_tokens,
      outputTokens: usage.output_tokens,
      cacheReadTokens: usage.cache_read_input_tokens,
      cacheWrite5mTokens: usage.cache_creation_input_tokens - write1h,
      cacheWrite1hTokens: write1h,
    });
  }
  const refusal = last?.refusal;
  return {
    text: replies.map((reply) => reply.text).join(''),
    usage: { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens },
    stopReason: STOP_REASONS[last?.stopReason ?? ''] ?? 'other',
    // The requested id, not the served snapshot name, so usage adds up per configured model.
    model: id,
    ...(last?.requestId ? { requestId: last.requestId } : {}),
    ...(price === undefined ? {} : { costUsd }),
    ...(refusal == null
      ? {}
      : { refusal: { category: refusal.category, explanation: refusal.explanation } }),
  };
}
