import { type JsonValue, jsonValueSchema } from '@rlm/protocol';
import { z } from 'zod';

const textPartSchema = z.object({ type: z.literal('text'), text: z.string() }).loose();

/** One OpenAI chat message; content as a string or a list of text parts. */
const chatMessageSchema = z
  .object({
    role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']),
    content: z.union([z.string(), z.array(textPartSchema), z.null()]).optional(),
    name: z.string().optional(),
  })
  .loose();
export type OpenAiChatMessage = z.infer<typeof chatMessageSchema>;

/**
 * `POST /v1/chat/completions`, the OpenAI shape. Unknown OpenAI fields are accepted and ignored
 * (clients send many); `context` is our extension.
 */
export const chatCompletionRequestSchema = z
  .object({
    model: z.string().min(1),
    messages: z.array(chatMessageSchema).min(1, 'messages must hold at least one message'),
    stream: z.boolean().nullish(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).loose().nullish(),
    /** Extension: the context the RLM works over; the earlier messages are used when absent. */
    context: jsonValueSchema.optional(),
  })
  .loose()
  .refine((body) => body.messages.some((message) => message.role === 'user'), {
    message: 'messages must contain a user message (the last one is the query)',
    path: ['messages'],
  });
export type ChatCompletionRequest = z.infer<typeof chatCompletionRequestSchema>;

/** The text of a message's content. */
export function messageText(message: OpenAiChatMessage): string {
  const { content } = message;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => part.text).join('');
  return '';
}

/**
 * Splits a chat request into the RLM's query (the last user message) and context (the
 * `context` extension, else every other message as `{ role, content }`, else an empty string).
 */
export function toRunInput(request: ChatCompletionRequest): { query: string; context: JsonValue } {
  const lastUser = request.messages.findLastIndex((message) => message.role === 'user');
  const query = messageText(request.messages[lastUser] as OpenAiChatMessage);
  if (request.context !== undefined) return { query, context: request.context };
  const rest = request.messages
    .filter((_, index) => index !== lastUser)
    .map((message) => ({ role: message.role, content: messageText(message) }));
  return { query, context: rest.length === 0 ? '' : rest };
}
