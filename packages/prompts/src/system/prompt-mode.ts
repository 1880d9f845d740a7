import { z } from 'zod';

/**
 * How the root RLM approaches a task. `solver` works the problem itself (delegating when useful);
 * `coordinator` splits it into hypotheses and hands them to children. Children are always solvers.
 */
export const promptModeSchema = z.enum(['solver', 'coordinator']);

/** `solver` or `coordinator`. */
export type PromptMode = z.infer<typeof promptModeSchema>;

/** Every prompt mode, in a stable order. */
export const PROMPT_MODES: readonly PromptMode[] = promptModeSchema.options;
