import { jsonValueSchema, runLimitsSchema } from '@rlm/protocol';
import { z } from 'zod';

/**
 * The server's facts about a run, kept in the run store's `config` column: who owns it, what it
 * asked, which stored context and profile it uses, and its capped budget. Enough to run it again
 * after a restart.
 */
export const runMetaSchema = z.object({
  kind: z.enum(['run', 'chat', 'agent']),
  owner: z.string(),
  query: z.string(),
  contextId: z.string(),
  profile: z.string(),
  model: z.string(),
  /** The capped budget: every field of the run contract's limits a server run always has. */
  budget: runLimitsSchema
    .pick({
      maxIterations: true,
      maxDepth: true,
      maxTokens: true,
      maxCostUsd: true,
      maxWallTimeMs: true,
      maxSubcalls: true,
    })
    .required(),
  agentId: z.string().nullable(),
  /** The JSON Schema the answer must match (a chat request's `response_format`). */
  outputSchema: z.record(z.string(), jsonValueSchema).optional(),
  /**
   * An escalation ladder a caller chose (MCP `rlm_query`), as model ids of configured profiles,
   * and its error count; in place of the profile's. Kept so a restarted run escalates the same.
   */
  escalation: z
    .object({
      escalate: z.array(z.string().min(1)).min(1).optional(),
      escalateAfterErrors: z.number().int().positive().optional(),
    })
    .optional(),
  /**
   * Whether the context was stored for this run alone (given inline), so deleting the run deletes
   * it too; an uploaded context is the uploader's and stays. Runs stored before this field: false.
   */
  contextOwned: z.boolean().default(false),
});
export type RunMeta = z.infer<typeof runMetaSchema>;
