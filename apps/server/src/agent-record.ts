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

/** `POST /v1/agents`. */
export const createAgentRequestSchema = z
  .object({
    /** A short name the agent goes by (layer 3 of its prompt). */
    identityTag: z.string().min(1).max(80).optional(),
    /** A configured profile; the default profile when omitted. */
    profile: z.string().min(1).optional(),
  })
  .strict();

/** `POST /v1/agents/:id/messages`. */
export const agentMessageRequestSchema = z
  .object({
    /** Who sent the message (any id; trimmed, `0x` addresses lowercased). */
    sender: z.string().trim().min(1, 'sender must be a non-empty id').max(200),
    body: z.string().min(1, 'body must be a non-empty message').max(20_000),
  })
  .strict();
export type AgentMessageRequest = z.infer<typeof agentMessageRequestSchema>;

/** `PUT /v1/agents/:id/prompt-layers/:layerId`. */
export const layerUpdateRequestSchema = z.object({ content: z.string() }).strict();
