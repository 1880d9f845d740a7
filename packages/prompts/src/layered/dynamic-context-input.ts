import { z } from 'zod';

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/** A message waiting for the agent this turn. */
export const pendingMessageSchema = z.object({
  sender: z.string().min(1, 'expected a sender id'),
  text: z.string(),
  /** When it arrived (ISO 8601 or any display string). */
  at: z.string().optional(),
});

/** One message of a stored conversation with a sender. */
export const conversationMessageSchema = z.object({
  /** `user` for the sender, `assistant` for the agent. */
  role: z.enum(['user', 'assistant']),
  text: z.string(),
  at: z.string().optional(),
});

/** A sender's stored conversation, oldest message first. */
export const conversationSchema = z.object({
  sender: z.string().min(1, 'expected a sender id'),
  messages: z.array(conversationMessageSchema),
});

/** A remembered item with where it came from. */
export const memoryItemSchema = z.object({
  text: z.string().min(1),
  source: z.string().min(1).optional(),
  at: z.string().optional(),
});

/** What remains of the agent's budgets; any subset. */
export const budgetStatusSchema = z.object({
  tokensRemaining: z.number().nonnegative().optional(),
  callsRemaining: z.number().int().nonnegative().optional(),
  timeRemainingMs: z.number().nonnegative().optional(),
  costRemainingUsd: z.number().nonnegative().optional(),
});

/** A tool the agent can use this turn. */
export const dynamicToolSchema = z.object({
  name: z.string().min(1),
  description: z.string().min(1),
});

/** The per-turn input of layer 10. */
export const dynamicContextInputSchema = z.object({
  /** Short facts about the agent's situation, rendered as `key: value`. */
  state: z.record(z.string(), scalar).default({}),
  pendingMessages: z.array(pendingMessageSchema).default([]),
  /** Stored conversations; only senders with a pending message are shown. */
  conversations: z.array(conversationSchema).default([]),
  recentMemory: z.array(z.union([z.string().min(1), memoryItemSchema])).default([]),
  tools: z.array(dynamicToolSchema).default([]),
  budget: budgetStatusSchema.optional(),
  /** Which turn of the agent's life this is (1 for its first), shown beside the budget. */
  turn: z.number().int().positive().optional(),
});

/** Input of `buildDynamicContext` as callers write it. */
export type DynamicContextInput = z.input<typeof dynamicContextInputSchema>;
/** A pending message. */
export type PendingMessage = z.infer<typeof pendingMessageSchema>;
/** A stored conversation. */
export type Conversation = z.infer<typeof conversationSchema>;
/** A message of a stored conversation. */
export type ConversationMessage = z.infer<typeof conversationMessageSchema>;
/** A remembered item. */
export type MemoryItem = z.infer<typeof memoryItemSchema>;
/** Remaining budgets. */
export type BudgetStatus = z.infer<typeof budgetStatusSchema>;
