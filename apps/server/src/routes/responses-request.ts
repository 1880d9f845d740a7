import { type JsonValue, jsonValueSchema } from '@rlm/protocol';
import { z } from 'zod';
import { type ChatCompletionRequest, toRunInput } from '../chat-completion-request.js';

/** Text content; images, files and audio are not something the RLM's context takes. */
const textPartSchema = z
  .object({
    type: z.enum(['input_text', 'output_text', 'text'], {
      error: 'expected a text part (input_text or output_text)',
    }),
    text: z.string(),
  })
  .loose();

/** A message item (`{ role, content }`, `type: 'message'` optional). */
const messageItemSchema = z
  .object({
    type: z.literal('message').optional(),
    role: z.enum(['user', 'assistant', 'system', 'developer']),
    content: z.union([z.string(), z.array(textPartSchema)], {
      error:
        'expected a string or a list of text parts (input_text, output_text); images, files and audio are not taken',
    }),
  })
  .loose();

/**
 * A reasoning item: what a streamed response of this server sends as progress. Stateless
 * clients send a response's output back as the next input, so it is accepted and left out.
 */
const reasoningItemSchema = z.object({ type: z.literal('reasoning') }).loose();

type InputItem = z.infer<typeof messageItemSchema> | z.infer<typeof reasoningItemSchema>;

/**
 * `input`: a string (the query) or a list of items. Items are checked one by one, so an error
 * names the item and its field (`input.1.content.0.type`) instead of "invalid input".
 */
const inputSchema = z
  .union([z.string(), z.array(z.unknown())], {
    error: 'expected a string or a list of input items',
  })
  .transform((value, context): string | InputItem[] => {
    if (typeof value === 'string') {
      if (value === '') context.addIssue({ code: 'custom', message: 'input must not be empty' });
      return value;
    }
    if (value.length === 0) {
      context.addIssue({ code: 'custom', message: 'input must hold at least one item' });
    }
    const items: InputItem[] = [];
    value.forEach((item, index) => {
      const isReasoning = reasoningItemSchema.safeParse(item);
      if (isReasoning.success) {
        items.push(isReasoning.data);
        return;
      }
      const type = (item as { type?: unknown } | null)?.type;
      if (type !== undefined && type !== 'message') {
        context.addIssue({
          code: 'custom',
          message: `expected a message item { role, content }, not "${String(type)}" (function calls and their outputs are not taken)`,
          path: [index, 'type'],
        });
        return;
      }
      const message = messageItemSchema.safeParse(item);
      if (message.success) items.push(message.data);
      for (const issue of message.error?.issues ?? []) {
        context.addIssue({ code: 'custom', message: issue.message, path: [index, ...issue.path] });
      }
    });
    return items;
  });

/**
 * `text.format`: `json_schema` makes the answer JSON matching `schema` (checked by the RLM loop,
 * which goes on until it matches), `json_object` any JSON object, `text` plain text.
 */
const textFormatSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }).loose(),
  z.object({ type: z.literal('json_object') }).loose(),
  z
    .object({
      type: z.literal('json_schema'),
      name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'name must be 1-64 letters, digits, _ or -'),
      description: z.string().optional(),
      schema: z.record(z.string(), jsonValueSchema).optional(),
      strict: z.boolean().nullish(),
    })
    .loose(),
]);

const unsupported = (what: string) => `${what} is not supported: this server keeps no responses`;

/**
 * `POST /v1/responses`, OpenAI's Responses API shape. Unknown fields are accepted and ignored
 * (clients send many); `context` is our extension. Conversation state kept by the server
 * (`previous_response_id`, `conversation`, `background`) is refused rather than ignored.
 */
export const responsesRequestSchema = z
  .object({
    model: z.string().min(1),
    input: inputSchema,
    instructions: z.string().nullish(),
    stream: z.boolean().nullish(),
    text: z.object({ format: textFormatSchema.optional() }).loose().nullish(),
    previous_response_id: z.null({ error: unsupported('previous_response_id') }).optional(),
    conversation: z.null({ error: unsupported('conversation') }).optional(),
    background: z.literal(false, { error: unsupported('background: true') }).nullish(),
    /** Extension: the context the RLM works over; the other input messages are used when absent. */
    context: jsonValueSchema.optional(),
  })
  .loose()
  .refine(
    (body) =>
      typeof body.input === 'string' ||
      body.input.some((item) => 'role' in item && item.role === 'user'),
    { message: 'input must contain a user message (the last one is the query)', path: ['input'] },
  );
export type ResponsesRequest = z.infer<typeof responsesRequestSchema>;

type MessageItem = z.infer<typeof messageItemSchema>;

function itemText(item: MessageItem): string {
  return typeof item.content === 'string'
    ? item.content
    : item.content.map((part) => part.text).join('');
}

/**
 * The run's query and context, split as a chat request's are: `instructions` count as a system
 * message before the input, the last user message is the query.
 */
export function responsesRunInput(request: ResponsesRequest): {
  query: string;
  context: JsonValue;
} {
  const items =
    typeof request.input === 'string'
      ? [{ role: 'user' as const, content: request.input }]
      : request.input.filter((item): item is MessageItem => 'role' in item);
  const messages = [
    ...(request.instructions ? [{ role: 'system' as const, content: request.instructions }] : []),
    ...items.map((item) => ({ role: item.role, content: itemText(item) })),
  ];
  const chat: ChatCompletionRequest = {
    model: request.model,
    messages,
    ...(request.context === undefined ? {} : { context: request.context }),
  };
  return toRunInput(chat);
}

/** The JSON Schema the answer must match, from `text.format`. */
export function responsesAnswerSchema(
  request: ResponsesRequest,
): Record<string, JsonValue> | undefined {
  const format = request.text?.format;
  if (format === undefined || format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'object' };
  return format.schema ?? {};
}
