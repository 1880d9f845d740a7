import type { LanguageModelV3Message, LanguageModelV3Prompt } from '@ai-sdk/provider';
import type { ChatMessage, ModelRequest } from '@rlm/protocol';
import { withoutBlankAssistantTurns } from './blank-assistant-turns.js';

/**
 * The AI SDK prompt for a request: the system prompt as a `system` message, then the
 * conversation as text parts. Blank assistant turns are left out and neighbours of the same role
 * joined (a blank line between), because several providers refuse an empty message or two turns
 * of one role in a row. The shape is the same in specification versions 2 and 3.
 */
export function aiSdkPrompt(request: ModelRequest): LanguageModelV3Prompt {
  const prompt: LanguageModelV3Message[] = [];
  if (request.system !== undefined && request.system !== '') {
    prompt.push({ role: 'system', content: request.system });
  }
  for (const message of joinSameRole(withoutBlankAssistantTurns(request.messages))) {
    prompt.push({ role: message.role, content: [{ type: 'text', text: message.content }] });
  }
  return prompt;
}

function joinSameRole(messages: readonly ChatMessage[]): ChatMessage[] {
  const joined: ChatMessage[] = [];
  for (const message of messages) {
    const last = joined.at(-1);
    if (last !== undefined && last.role === message.role) {
      joined[joined.length - 1] = {
        role: last.role,
        content: `${last.content}\n\n${message.content}`,
      };
    } else {
      joined.push(message);
    }
  }
  return joined;
}
