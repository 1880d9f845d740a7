import { z } from 'zod';

/** A user tool the sandbox exposes as an async global, listed in the tools section. */
export const toolSpecSchema = z.object({
  /** The global's name: a JavaScript identifier. */
  name: z
    .string()
    .regex(/^[A-Za-z_$][\w$]*$/, 'expected a JavaScript identifier such as search_docs'),
  /** What the tool does and returns, in one or two sentences. */
  description: z.string().trim().min(1, 'expected a non-empty description'),
  /** Optional call shape shown after the name, such as `(query, { limit })`. */
  signature: z.string().trim().min(1).optional(),
});

/** A user tool listed in the system prompt. */
export type ToolSpec = z.infer<typeof toolSpecSchema>;
