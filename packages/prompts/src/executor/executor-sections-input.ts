import { z } from 'zod';
import { budgetStatusSchema } from '../layered/dynamic-context-input.js';

/** A piece of context with its provenance and an optional priority for trimming. */
export const contextItemSchema = z.object({
  text: z.string().trim().min(1, 'expected non-empty text'),
  /** Where the item came from, such as `memory:episodic#41` or `user`. Shown next to the item. */
  source: z.string().trim().min(1, 'expected a source (provenance)'),
  /** 0–100; higher survives trimming longer. @default the section's priority */
  priority: z.number().min(0).max(100).optional(),
});

/** A fixed piece (role, task): plain text (source `caller`) or text with its source. */
const anchoredSchema = z.union([
  z.string().trim().min(1, 'expected non-empty text'),
  z.object({ text: z.string().trim().min(1), source: z.string().trim().min(1) }),
]);

/** An action or tool the agent may take this turn. */
export const actionSpecSchema = z.object({
  name: z.string().trim().min(1),
  description: z.string().trim().min(1),
  source: z.string().trim().min(1).default('runtime'),
  priority: z.number().min(0).max(100).optional(),
});

/** The default character budget of `buildExecutorSections`. */
export const DEFAULT_EXECUTOR_SECTIONS_CHARS = 12_000;

/** Input of `buildExecutorSections`. Item lists are ordered most relevant first, except `conversation`, which is oldest first. */
export const executorSectionsInputSchema = z.object({
  role: anchoredSchema,
  constraints: z.array(contextItemSchema).default([]),
  goals: z.array(contextItemSchema).default([]),
  pendingActions: z.array(contextItemSchema).default([]),
  conversation: z.array(contextItemSchema).default([]),
  observations: z.array(contextItemSchema).default([]),
  episodic: z.array(contextItemSchema).default([]),
  semantic: z.array(contextItemSchema).default([]),
  budget: budgetStatusSchema
    .extend({ source: z.string().trim().min(1).default('runtime') })
    .optional(),
  actions: z.array(actionSpecSchema).default([]),
  task: anchoredSchema,
  /** @default DEFAULT_EXECUTOR_SECTIONS_CHARS */
  maxChars: z.number().int().positive().default(DEFAULT_EXECUTOR_SECTIONS_CHARS),
});

/** Input of `buildExecutorSections` as callers write it. */
export type ExecutorSectionsInput = z.input<typeof executorSectionsInputSchema>;
/** A context item with provenance. */
export type ContextItem = z.input<typeof contextItemSchema>;
/** An available action. */
export type ActionSpec = z.input<typeof actionSpecSchema>;
