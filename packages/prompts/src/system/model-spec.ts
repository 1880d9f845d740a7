import { z } from 'zod';

/** A model the RLM may pick with `{ model }` in sub-calls; listed when more than one exists. */
export const modelSpecSchema = z.object({
  /** Model id as passed to `{ model }`, such as `anthropic/claude-haiku-4-5`. */
  id: z.string().trim().min(1, 'expected a model id'),
  /** When to use it (speed, strength, cost), in a few words. */
  description: z.string().trim().min(1).optional(),
  /** True for the model used when `{ model }` is omitted. */
  default: z.boolean().optional(),
});

/** A model row of the models table. */
export type ModelSpec = z.infer<typeof modelSpecSchema>;
