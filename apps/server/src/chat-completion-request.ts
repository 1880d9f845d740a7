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
 * OpenAI's `response_format`: `json_schema` makes the answer JSON matching `schema` (checked by
 * the RLM loop, which goes on until it matches), `json_object` any JSON object, `text` plain text.
 * `strict` is accepted; the answer is always checked against the whole schema.
 */
const responseFormatSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }).loose(),
  z.object({ type: z.literal('json_object') }).loose(),
  z
    .object({
      type: z.literal('json_schema'),
      json_schema: z
        .object({
          name: z
            .string()
            .regex(/^[A-Za-z0-9_-]{1,64}$/, 'name must be 1-64 letters, digits, _ or -'),
          description: z.string().optional(),
          schema: z.record(z.string(), jsonValueSchema).optional(),
          strict: z.boolean().nullish(),
        })
        .loose(),
    })
    .loose(),
]);

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
    response_format: responseFormatSchema.nullish(),
    /** Extension: the context the RLM works over; the earlier messages are used when absent. */
    context: jsonValueSchema.optional(),
  })
  .loose()
  .refine((body) => body.messages.some((message) => message.role === 'user'), {
    message: 'messages must contain a user message (the last one is the query)',
    path: ['messages'],
  });
export type ChatCompletionRequest = z.infer<typeof chatCompletionRequestSchema>;

/**
 * The JSON Schema the answer must match, from `response_format`: the given schema for
 * `json_schema` (any JSON value when it has none), `{ type: 'object' }` for `json_object`.
 */
export function answerSchemaOf(
  request: ChatCompletionRequest,
): Record<string, JsonValue> | undefined {
  const format = request.response_format;
  if (format === undefined || format === null || format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'object' };
  return format.json_schema.schema ?? {};
}

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
