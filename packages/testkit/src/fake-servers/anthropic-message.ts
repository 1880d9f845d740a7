import { estimateTokens } from '../estimate-tokens.js';
import type { CacheAccount } from './anthropic-prompt-cache.js';
import type { AnthropicMessagesBody } from './anthropic-request.js';
import type { BodyStep } from './fake-http-server.js';
import { type FakeReply, splitIntoChunks } from './fake-reply.js';

type ContentBlock =
  | { type: 'text'; text: string; citations: null }
  | { type: 'thinking'; thinking: string; signature: string };

/** A Messages API response as the fake server sends it. */
export interface BuiltMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: ContentBlock[];
  stop_reason: string;
  stop_sequence: string | null;
  stop_details: { type: 'refusal'; category: string | null; explanation: string | null } | null;
  usage: {
    input_tokens: number;
    output_tokens: number;
    cache_creation_input_tokens: number;
    cache_read_input_tokens: number;
    cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
    service_tier: 'standard';
    output_tokens_details: { thinking_tokens: number } | null;
  };
}

/** Whether the request turned extended thinking on (`enabled` with a budget, or `adaptive`). */
function thinkingOn(body: AnthropicMessagesBody): boolean {
  const thinking = (body as { thinking?: { type?: unknown } }).thinking;
  return thinking?.type === 'enabled' || thinking?.type === 'adaptive';
}

/**
 * The message for a scripted reply: its thinking (only when the request turned thinking on, as
 * the API does) before its text, the stop reason, refusal details, and usage in which output
 * tokens include the thinking tokens.
 */
export function buildMessage({
  body,
  reply,
  account,
  id,
}: {
  body: AnthropicMessagesBody;
  reply: FakeReply;
  account: CacheAccount;
  id: string;
}): BuiltMessage {
  const thinking = thinkingOn(body) ? (reply.thinking ?? '') : '';
  const thinkingTokens = thinking === '' ? 0 : estimateTokens(thinking);
  const { text, stopReason, stopSequence } = finishText(reply, {
    body,
    outputRoom: body.max_tokens - thinkingTokens,
  });
  const content: ContentBlock[] = [];
  if (thinking !== '') {
    content.push({ type: 'thinking', thinking, signature: `sig_fake_${thinking.length}` });
  }
  if (text !== '') content.push({ type: 'text', text, citations: null });
  const refusal = reply.refusal;
  return {
    id,
    type: 'message',
    role: 'assistant',
    model: body.model,
    content,
    stop_reason: stopReason,
    stop_sequence: stopSequence,
    stop_details:
      refusal === undefined
        ? null
        : {
            type: 'refusal',
            category: refusal.category ?? null,
            explanation: refusal.explanation ?? null,
          },
    usage: {
      input_tokens: reply.usage?.inputTokens ?? account.inputTokens,
      output_tokens:
        reply.usage?.outputTokens ?? Math.max(1, estimateTokens(text) + thinkingTokens),
      cache_creation_input_tokens: account.cacheWrite5mTokens + account.cacheWrite1hTokens,
      cache_read_input_tokens: reply.usage?.cacheReadTokens ?? account.cacheReadTokens,
      cache_creation: {
        ephemeral_5m_input_tokens: account.cacheWrite5mTokens,
        ephemeral_1h_input_tokens: account.cacheWrite1hTokens,
      },
      service_tier: 'standard',
      output_tokens_details: thinkingOn(body) ? { thinking_tokens: thinkingTokens } : null,
    },
  };
}

/** Applies stop sequences and the output room left by thinking to the scripted text. */
function finishText(
  reply: FakeReply,
  { body, outputRoom }: { body: AnthropicMessagesBody; outputRoom: number },
): { text: string; stopReason: string; stopSequence: string | null } {
  let text = reply.text ?? '';
  let stopReason = reply.refusal === undefined ? 'end_turn' : 'refusal';
  let stopSequence: string | null = null;
  let cut = text.length;
  for (const sequence of body.stop_sequences ?? []) {
    const at = sequence === '' ? -1 : text.indexOf(sequence);
    if (at >= 0 && at < cut) {
      cut = at;
      stopSequence = sequence;
    }
  }
  if (stopSequence !== null) {
    text = text.slice(0, cut);
    stopReason = 'stop_sequence';
  } else if (estimateTokens(text) > outputRoom) {
    text = text.slice(0, Math.max(0, outputRoom) * 4);
    stopReason = 'max_tokens';
  }
  return { text, stopReason: reply.stopReason ?? stopReason, stopSequence };
}

function sse(event: string, data: Record<string, unknown>): string {
  return `event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`;
}

/** The events of the thinking block (index 0): its deltas, then the signature. */
function thinkingEvents(block: Extract<ContentBlock, { type: 'thinking' }>): string[] {
  return [
    sse('content_block_start', {
      index: 0,
      content_block: { type: 'thinking', thinking: '', signature: '' },
    }),
    ...splitIntoChunks(block.thinking, undefined).map((piece) =>
      sse('content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: piece } }),
    ),
    sse('content_block_delta', {
      index: 0,
      delta: { type: 'signature_delta', signature: block.signature },
    }),
    sse('content_block_stop', { index: 0 }),
  ];
}

/** The SSE event sequence of a message, with the reply's stream faults applied. */
export function streamSteps(message: BuiltMessage, reply: FakeReply): BodyStep[] {
  const faults = reply.stream ?? {};
  const thinking = message.content.find((block) => block.type === 'thinking');
  const textIndex = thinking === undefined ? 0 : 1;
  const textBlock = message.content.find((block) => block.type === 'text');
  const deltas = splitIntoChunks(textBlock?.text ?? '', faults.chunks);
  const { usage } = message;
  const startUsage = {
    input_tokens: usage.input_tokens,
    output_tokens: 1,
    cache_creation_input_tokens: usage.cache_creation_input_tokens,
    cache_read_input_tokens: usage.cache_read_input_tokens,
    cache_creation: usage.cache_creation,
    service_tier: usage.service_tier,
  };
  const writes: string[] = [
    sse('message_start', {
      message: {
        ...message,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        stop_details: null,
        usage: startUsage,
      },
    }),
    ...(thinking === undefined ? [] : thinkingEvents(thinking)),
    sse('content_block_start', { index: textIndex, content_block: { type: 'text', text: '' } }),
    sse('ping', {}),
  ];
  const steps = (): BodyStep[] =>
    writes.map((write, index) => ({
      write,
      delayMs: index === 0 ? 0 : (faults.eventDelayMs ?? 0),
    }));
  for (let index = 0; index <= deltas.length; index += 1) {
    if (faults.errorAfterChunks === index) {
      writes.push(
        sse('error', {
          error: {
            type: faults.errorType ?? 'overloaded_error',
            message: faults.errorMessage ?? 'Overloaded',
          },
        }),
      );
      return steps();
    }
    if (faults.truncateAfterChunks === index) return steps();
    if (faults.resetAfterChunks === index) return [...steps(), { reset: true }];
    const delta = deltas[index];
    if (delta !== undefined) {
      writes.push(
        sse('content_block_delta', {
          index: textIndex,
          delta: { type: 'text_delta', text: delta },
        }),
      );
    }
  }
  writes.push(
    sse('content_block_stop', { index: textIndex }),
    sse('message_delta', {
      delta: {
        stop_reason: message.stop_reason,
        stop_sequence: message.stop_sequence,
        stop_details: message.stop_details,
      },
      usage: {
        output_tokens: usage.output_tokens,
        input_tokens: usage.input_tokens,
        cache_creation_input_tokens: usage.cache_creation_input_tokens,
        cache_read_input_tokens: usage.cache_read_input_tokens,
        output_tokens_details: usage.output_tokens_details,
      },
    }),
    sse('message_stop', {}),
  );
  return steps();
}
