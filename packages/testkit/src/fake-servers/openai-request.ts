import type { ChatMessage } from '@rlm/protocol';
import { z } from 'zod';

const contentSchema = z.union([
  z.string(),
  z.array(z.looseObject({ type: z.string(), text: z.string().optional() })),
  z.null(),
]);

/** The fields of a `POST /v1/chat/completions` body the fake server reads (others pass through). */
export const openAIChatBodySchema = z.looseObject({
  model: z.string().min(1),
  messages: z
    .array(
      z.looseObject({
        role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']),
        content: contentSchema.optional(),
      }),
    )
    .min(1),
  max_tokens: z.number().int().positive().nullish(),
  max_completion_tokens: z.number().int().positive().nullish(),
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
});
export type OpenAIChatBody = z.infer<typeof openAIChatBodySchema>;

/** The normalised conversation: system/developer messages become `system`, parts are joined. */
export function openAIConversationOf(body: OpenAIChatBody): {
  system: string | undefined;
  messages: ChatMessage[];
} {
  const system: string[] = [];
  const messages: ChatMessage[] = [];
  for (const message of body.messages) {
    const content = textOf(message.content);
    if (message.role === 'system' || message.role === 'developer') system.push(content);
    else if (message.role === 'user' || message.role === 'assistant') {
      messages.push({ role: message.role, content });
    }
  }
  return { system: system.length === 0 ? undefined : system.join('\n'), messages };
}

function textOf(content: z.infer<typeof contentSchema> | undefined): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  return content.map((part) => part.text ?? '').join('\n');
}

/** Every character the prompt sends, for the token estimate. */
export function openAIPromptText(body: OpenAIChatBody): string {
  const { system, messages } = openAIConversationOf(body);
  return (system ?? '') + messages.map((message) => message.content).join('');
}
