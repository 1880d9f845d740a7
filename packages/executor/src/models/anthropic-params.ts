import type {
  ContentBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
  TextBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import type { ModelRequest } from '@rlm/protocol';
import { z } from 'zod';
import { ANTHROPIC_EFFORTS } from './anthropic-efforts.js';
import { withoutBlankAssistantTurns } from './blank-assistant-turns.js';

/** The smallest thinking budget the API accepts. */
export const MIN_THINKING_BUDGET_TOKENS = 1024;

/**
 * Extended thinking: `enabled` gives the model `budgetTokens` to think before it answers (sent on
 * top of the answer's `maxTokens`, so the answer keeps its room); `adaptive` lets the model decide
 * how much to think, within `maxTokens`. Thinking tokens are billed as output tokens.
 */
export const anthropicThinkingSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('enabled'),
    budgetTokens: z.number().int().min(MIN_THINKING_BUDGET_TOKENS),
  }),
  z.strictObject({ type: z.literal('adaptive') }),
]);
export type AnthropicThinking = z.infer<typeof anthropicThinkingSchema>;

/** How much effort the model spends on a response (`output_config.effort`). */
export const anthropicEffortSchema = z.enum(ANTHROPIC_EFFORTS);
export type AnthropicEffort = z.infer<typeof anthropicEffortSchema>;

/** Output tokens a call may produce: the answer's cap plus an enabled thinking budget. */
export function anthropicOutputCap(maxTokens: number, thinking: AnthropicThinking | undefined) {
  return maxTokens + (thinking?.type === 'enabled' ? thinking.budgetTokens : 0);
}

/**
 * Whether a request may still be sent with `room` output tokens left of a turn's cap: at least
 * one, and with enabled thinking more than the smallest budget (the API wants
 * `MIN_THINKING_BUDGET_TOKENS` ≤ `budget_tokens` < `max_tokens`).
 */
export function hasOutputRoom(room: number, thinking: AnthropicThinking | undefined): boolean {
  return room > (thinking?.type === 'enabled' ? MIN_THINKING_BUDGET_TOKENS : 0);
}

/**
 * How the Anthropic client asks for prompt caching:
 * - `auto`: top-level automatic caching (the API moves the breakpoint to the last block as the
 *   conversation grows) plus one breakpoint after the system prompt, so runs that share a system
 *   prompt share its cache entry;
 * - `breakpoints`: explicit moving breakpoints on the system prompt, the newest message and the
 *   newest message of the previous turn (three, never more than four);
 * - `off`: no `cache_control` at all.
 */
export type PromptCachingMode = 'auto' | 'breakpoints' | 'off';

/** Most `cache_control` markers the API accepts in one request. */
export const MAX_CACHE_BREAKPOINTS = 4;

/** How long cache entries live: 5 minutes (writes cost 1.25× input) or 1 hour (2×). */
export type CacheTtl = '5m' | '1h';

/** Options of `buildAnthropicParams`. */
export interface AnthropicParamsOptions {
  model: string;
  maxTokens: number;
  promptCaching: PromptCachingMode;
  /** @default '5m' */
  cacheTtl?: CacheTtl;
  thinking?: AnthropicThinking | undefined;
  effort?: AnthropicEffort | undefined;
  /** The paused response so far (`pause_turn`): sent back as the final assistant turn. */
  continuation?: readonly ContentBlockParam[] | undefined;
  /**
   * `max_tokens` for a continuation: what the turn's cap leaves after the paused responses, so
   * the whole turn stays within what budgets reserved. An enabled thinking budget shrinks to fit
   * under it. @default the cap of `anthropicOutputCap`
   */
  outputRoom?: number | undefined;
}

/**
 * Builds the streaming Messages body for a request. Never sets `temperature`, `top_p` or
 * `top_k`: API version 2026-10-21 (SDK 1.x) rejects them at any value. Never sends an assistant
 * turn without text (the API refuses the whole request): such turns are left out.
 */
export function buildAnthropicParams(
  original: ModelRequest,
  options: AnthropicParamsOptions,
): MessageCreateParamsStreaming {
  const { model, promptCaching, cacheTtl = '5m', thinking, effort } = options;
  const cap = maxTokensOf(original, options);
  const request = { ...original, messages: withoutBlankAssistantTurns(original.messages) };
  // The 5-minute TTL is the default, so it is left implicit on the wire.
  const ephemeral =
    cacheTtl === '1h'
      ? { type: 'ephemeral' as const, ttl: '1h' as const }
      : { type: 'ephemeral' as const };
  const marked = (text: string): TextBlockParam => ({
    type: 'text',
    text,
    cache_control: ephemeral,
  });
  const marks = new Set(promptCaching === 'breakpoints' ? breakpointIndexes(request) : []);
  const messages: MessageParam[] = request.messages.map((message, index) => ({
    role: message.role,
    content: marks.has(index) ? [marked(message.content)] : message.content,
  }));
  const continuation = options.continuation ?? [];
  if (continuation.length > 0) messages.push({ role: 'assistant', content: [...continuation] });
  const system =
    request.system === undefined || request.system === ''
      ? undefined
      : [
          promptCaching === 'off'
            ? { type: 'text' as const, text: request.system }
            : marked(request.system),
        ];
  return {
    model,
    max_tokens: cap,
    messages,
    ...(system === undefined ? {} : { system }),
    ...(request.stop === undefined || request.stop.length === 0
      ? {}
      : { stop_sequences: request.stop }),
    ...(promptCaching === 'auto' ? { cache_control: ephemeral } : {}),
    ...(thinking === undefined ? {} : { thinking: thinkingParam(thinking, cap) }),
    ...(effort === undefined ? {} : { output_config: { effort } }),
    stream: true,
  };
}

/**
 * The last message, and the last message before the newest assistant turn (where the previous
 * request's breakpoint sat, so its entry is read even when a turn adds many blocks).
 */
function breakpointIndexes(request: ModelRequest): number[] {
  const last = request.messages.length - 1;
  if (last < 0) return [];
  let previous = -1;
  for (let index = last - 1; index >= 0; index -= 1) {
    if (request.messages[index]?.role === 'assistant') {
      previous = index - 1;
      break;
    }
  }
  return previous >= 0 ? [previous, last] : [last];
}

/** Counts `cache_control` markers in a body (a guard: more than four is a 400 from the API). */
export function countCacheBreakpoints(params: MessageCreateParamsStreaming): number {
  let count = params.cache_control ? 1 : 0;
  const blocks = [
    ...(Array.isArray(params.system) ? params.system : []),
    ...params.messages.flatMap((message) =>
      Array.isArray(message.content) ? message.content : [],
    ),
  ];
  for (const block of blocks) if ('cache_control' in block && block.cache_control) count += 1;
  return count;
}

/** `max_tokens`: a continuation's room, else the request's cap plus an enabled thinking budget. */
function maxTokensOf(request: ModelRequest, options: AnthropicParamsOptions): number {
  if (options.outputRoom !== undefined) return options.outputRoom;
  return anthropicOutputCap(request.maxTokens ?? options.maxTokens, options.thinking);
}

function thinkingParam(
  thinking: AnthropicThinking,
  cap: number,
): MessageCreateParamsStreaming['thinking'] {
  // Only a continuation's smaller cap can be at or under the budget: think less, within it.
  return thinking.type === 'enabled'
    ? { type: 'enabled', budget_tokens: Math.min(thinking.budgetTokens, cap - 1) }
    : { type: 'adaptive' };
}
