import type { ChatMessage } from '@rlm/protocol';

/**
 * The conversation without assistant turns that hold no visible text. A model can answer with
 * nothing (all of its output was thinking, it was cut at once, it was refused), and the loop keeps
 * that turn in its history; sent back, Anthropic refuses the whole request ("all messages must
 * have non-empty content"), and so do other providers. Leaving the turn out is what the API
 * itself would make of it: the user turns around it are merged.
 */
export function withoutBlankAssistantTurns(messages: readonly ChatMessage[]): ChatMessage[] {
  return messages.filter(
    (message) => message.role !== 'assistant' || message.content.trim() !== '',
  );
}
