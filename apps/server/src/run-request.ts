import { jsonValueSchema, runLimitsSchema } from '@rlm/protocol';
import { z } from 'zod';

/** Per-run budgets a request may ask for; the server caps each at its configured maximum. */
export const runBudgetSchema = runLimitsSchema.pick({
  maxIterations: true,
  maxDepth: true,
  maxTokens: true,
  maxCostUsd: true,
  maxWallTimeMs: true,
  maxSubcalls: true,
});
export type RunBudgetRequest = z.infer<typeof runBudgetSchema>;

/** `POST /v1/runs`: a query over a context given inline or by the id of an uploaded context. */
export const createRunRequestSchema = z
  .object({
    query: z.string().min(1, 'query must be a non-empty string'),
    /** The context: a string, an array of strings/values, or an object. */
    context: jsonValueSchema.optional(),
    /** The id returned by `POST /v1/contexts`. */
    contextId: z.string().min(1).optional(),
    /** A configured profile name; the server's default profile when omitted. */
    profile: z.string().min(1).optional(),
    config: runBudgetSchema.optional(),
    /**
     * A JSON Schema the answer must match: the run goes on until the model's final answer does,
     * and `answer` is its JSON text.
     */
    outputSchema: z.record(z.string(), jsonValueSchema).optional(),
  })
  .strict()
  .refine((body) => !(body.context !== undefined && body.contextId !== undefined), {
    message: 'give either context or contextId, not both',
    path: ['contextId'],
  });
export type CreateRunRequest = z.infer<typeof createRunRequestSchema>;

/**
 * `POST /v1/runs/:id/resume`: new limits for the rest of the run (each capped at the server's
 * maximum); a limit left out keeps the run's own. Usage so far counts against them.
 */
export const resumeRunRequestSchema = z.object({ config: runBudgetSchema.optional() }).strict();
export type ResumeRunRequest = z.infer<typeof resumeRunRequestSchema>;

/** Query string of `GET /v1/runs`. */
export const listRunsQuerySchema = z.object({
  status: z
    .string()
    .optional()
    .transform((value) => (value === undefined || value === '' ? undefined : value.split(','))),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().optional(),
});
