import { z } from 'zod';
import { chatMessageSchema } from './language-model.js';
import { codeBlockSchema } from './repl-result.js';

/** One turn of the loop: the model's response, the blocks it ran and any final answer. */
export const rlmIterationSchema = z.object({
  /** 0-based turn number. */
  iteration: z.number().int().nonnegative(),
  prompt: z.array(chatMessageSchema).optional(),
  response: z.string(),
  codeBlocks: z.array(codeBlockSchema),
  finalAnswer: z.string().nullable(),
  /** Milliseconds for the whole turn (model call plus blocks). */
  iterationTime: z.number().nonnegative(),
});
export type RLMIteration = z.infer<typeof rlmIterationSchema>;
