import { validateIdentityTag } from '@rlm/prompts';
import { z } from 'zod';

/** A long-lived agent: who owns it, its identity tag (layer 3) and the profile its turns use. */
export const agentRecordSchema = z.object({
  id: z.string(),
  owner: z.string(),
  identityTag: z.string().nullable(),
  profile: z.string(),
  createdAt: z.string(),
});
export type AgentRecord = z.infer<typeof agentRecordSchema>;

/**
 * An identity tag as layer 3 accepts it (trimmed): one line, at most 64 characters, and nothing
 * that voids or outranks layers 0–5, forges a heading or holds control characters.
 */
export const identityTagSchema = z
  .string()
  .trim()
  .superRefine((tag, context) => {
    const result = validateIdentityTag(tag);
    if (!result.ok) context.addIssue({ code: 'custom', message: result.error.message });
  });

/** `POST /v1/agents`. */
export const createAgentRequestSchema = z
  .object({
    /** A short name the agent goes by (layer 3 of its prompt). */
    identityTag: identityTagSchema.optional(),
    /** A configured profile; the default profile when omitted. */
    profile: z.string().min(1).optional(),
  })
  .strict();

/** The most messages one request may send; a turn takes at most `MAX_TURN_MESSAGES`. */
export const MAX_REQUEST_MESSAGES = 20;

const senderSchema = z.string().trim().min(1, 'sender must be a non-empty id').max(200);
const bodySchema = z.string().min(1, 'body must be a non-empty message').max(20_000);

/** One message to an agent. */
export const agentMessageSchema = z
  .object({
    /** Who sent the message (any id; trimmed, `0x` addresses lowercased). */
    sender: senderSchema,
    body: bodySchema,
  })
  .strict();
export type AgentMessage = z.infer<typeof agentMessageSchema>;

/**
 * `POST /v1/agents/:id/messages`: one message (`{ sender, body }`) or several, from one or more
 * senders (`{ messages: [{ sender, body }, …] }`). All of them are staged for the same turn.
 */
export const agentMessageRequestSchema = z
  .object({
    sender: senderSchema.optional(),
    body: bodySchema.optional(),
    /** Several messages at once, each with its sender; instead of `sender` and `body`. */
    messages: z
      .array(agentMessageSchema)
      .min(1, 'messages must hold at least one message')
      .max(MAX_REQUEST_MESSAGES, `messages: at most ${MAX_REQUEST_MESSAGES} per request`)
      .optional(),
  })
  .strict()
  .superRefine((value, context) => {
    if (value.messages !== undefined) {
      if (value.sender !== undefined || value.body !== undefined) {
        context.addIssue({
          code: 'custom',
          path: ['messages'],
          message: 'send either { sender, body } or { messages }, not both',
        });
      }
      return;
    }
    if (value.sender === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['sender'],
        message: 'sender must be a non-empty id',
      });
    }
    if (value.body === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['body'],
        message: 'body must be a non-empty message',
      });
    }
  });
export type AgentMessageRequest = z.infer<typeof agentMessageRequestSchema>;

/** The messages of a request, in order. */
export function requestMessages(request: AgentMessageRequest): AgentMessage[] {
  if (request.messages !== undefined) return request.messages;
  return [{ sender: request.sender ?? '', body: request.body ?? '' }];
}

/** `PUT /v1/agents/:id/prompt-layers/:layerId`. */
export const layerUpdateRequestSchema = z.object({ content: z.string() }).strict();

/** `PUT /v1/agents/:id/identity-tag` (admins): the new tag, or `null` for the default one. */
export const identityTagUpdateRequestSchema = z
  .object({ identityTag: identityTagSchema.nullable() })
  .strict();

/** `POST /v1/agents/:id/prompt-layers/:layerId/rollback` (admins): the version to restore. */
export const layerRollbackRequestSchema = z
  .object({ version: z.number().int().positive() })
  .strict();

/**
 * Who wrote a layer version, as the store records it: an admin key, or the agent itself during
 * the turn a sender's message started (`agent:<id> sender:<json>`), so a self-edit is traceable to
 * the message that triggered it.
 */
export function layerAuthor(
  writer: { admin: string } | { agentId: string; sender: string; runId: string },
): string {
  if ('admin' in writer) return `admin:${writer.admin}`;
  return `agent:${writer.agentId} run:${writer.runId} sender:${JSON.stringify(writer.sender)}`;
}
