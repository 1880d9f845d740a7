import { jsonValueSchema, runStatusSchema, usageSummarySchema } from '@rlm/protocol';
import { z } from 'zod';
import { runMetaSchema } from './run-meta.js';

/** The error body of every failed request (see `error-body.ts`). */
export const errorBodySchema = z.object({
  error: z.object({
    code: z.string().describe('Stable error code, e.g. `server.rate_limited`'),
    message: z.string(),
    type: z.string(),
    details: jsonValueSchema,
    requestId: z.string(),
  }),
});

/** A run's status as the API reports it: queued and running, then how it ended. */
export const apiRunStatusSchema = z.enum(['queued', 'running', ...runStatusSchema.options]);

/** A run as `GET /v1/runs/:id` returns it. */
export const runViewSchema = z.object({
  id: z.string(),
  kind: runMetaSchema.shape.kind,
  status: apiRunStatusSchema,
  profile: z.string(),
  model: z.string(),
  query: z.string(),
  contextId: z.string(),
  agentId: z.string().nullable(),
  budget: runMetaSchema.shape.budget,
  createdAt: z.string(),
  updatedAt: z.string(),
  endedAt: z.string().nullable(),
  usage: usageSummarySchema,
  costUsd: z.number(),
  answer: z.string().nullable(),
  partialAnswer: z.string().nullable(),
  /**
   * Model calls and sub-calls a budget refused (never sent) in the run's tree; null until it
   * ends. Non-zero means part of the work its code asked for was not done, whatever `status`.
   */
  refusedCalls: z.number().int().nonnegative().nullable(),
  /**
   * Times the run's REPL engine was replaced by a fresh one (`sandbox.reset`), losing the
   * variables its blocks had defined (the model was told); null until it ends.
   */
  sandboxResets: z.number().int().nonnegative().nullable(),
  iterations: z.number().int().nullable(),
  durationMs: z.number().nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  /**
   * Whether `POST /v1/runs/:id/resume` would continue the run from its last checkpoint (it ended
   * cancelled, stopped by a budget or its wall time, or interrupted, after its first turn).
   */
  resumable: z.boolean(),
});
export type RunView = z.infer<typeof runViewSchema>;

/** A page of runs. */
export const runPageSchema = z.object({
  data: z.array(runViewSchema),
  nextCursor: z.string().nullable(),
});

/** `POST /v1/contexts` and `GET /v1/contexts/:id`. */
export const contextViewSchema = z.object({
  id: z.string(),
  format: z.enum(['text', 'json']),
  bytes: z.number().int(),
  sha256: z.string(),
  createdAt: z.string(),
});

/** One prompt layer as `GET /v1/agents/:id/prompt-layers` lists it. */
export const promptLayerViewSchema = z.object({
  id: z.number().int().min(0).max(10),
  title: z.string(),
  mutability: z.enum(['immutable', 'mutable', 'dynamic']),
  text: z.string(),
  version: z.number().int().nullable(),
  updatedBy: z.string().nullable(),
  updatedAt: z.string().nullable(),
});

/** A stored version of a mutable layer. */
export const promptLayerVersionViewSchema = z.object({
  layerId: z.number().int(),
  version: z.number().int(),
  content: z.string(),
  by: z.string(),
  at: z.number(),
  restoredFrom: z.number().int().nullable(),
});

/** The reply to `POST /v1/agents/:id/messages`. */
export const agentTurnViewSchema = z.object({
  agentId: z.string(),
  /** The sender, when the request sent `{ sender, body }`. */
  sender: z.string().optional(),
  /** The reply to the request's sender when it had one sender; else `''` (see `replies`). */
  reply: z.string(),
  /** One reply per sender of this request; never another request's senders. */
  replies: z.array(z.object({ sender: z.string(), reply: z.string() })),
  runId: z.string(),
  /** Which turn of the agent this was (1 for its first). */
  turn: z.number().int().positive(),
  /** Messages the turn took, from every request staged for it. */
  messagesInTurn: z.number().int().positive(),
  status: apiRunStatusSchema,
  usage: usageSummarySchema,
  promptVersion: z.string(),
  promptStyle: z.enum(['full', 'compact']),
  layerUpdate: promptLayerVersionViewSchema.nullable(),
});

/** A sender known to an agent. */
export const senderViewSchema = z.object({
  senderId: z.string(),
  count: z.number().int(),
  lastActivityAt: z.string(),
});

/** One stored exchange with a sender (bodies truncated to 500 characters). */
export const exchangeViewSchema = z.object({
  messageId: z.string(),
  senderBody: z.string(),
  agentReply: z.string(),
  turnId: z.string(),
  at: z.string(),
});

/** The non-streamed OpenAI chat completion this server returns (plus `rlm`). */
export const chatCompletionViewSchema = z.object({
  id: z.string(),
  object: z.literal('chat.completion'),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(
    z.object({
      index: z.number().int(),
      message: z.object({ role: z.literal('assistant'), content: z.string() }),
      finish_reason: z.enum(['stop', 'length']),
    }),
  ),
  usage: z.object({
    prompt_tokens: z.number().int(),
    completion_tokens: z.number().int(),
    total_tokens: z.number().int(),
  }),
  rlm: z.object({
    runId: z.string(),
    status: apiRunStatusSchema,
    iterations: z.number().int(),
    costUsd: z.number(),
    /** The last response of a run that ended without an answer (not the assistant's reply). */
    partialAnswer: z.string().nullable(),
  }),
});
