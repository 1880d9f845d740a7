import { budgetConfigSchema } from '@rlm/executor';
import { replLanguageSchema, runLimitsSchema } from '@rlm/protocol';
import { z } from 'zod';

const systemName = z
  .string()
  .regex(
    /^[A-Za-z0-9][\w.:-]*$/,
    'letters, digits, ".", "_", ":" or "-", starting with a letter or digit',
  );

/** An RLM: the root model works over the context in a REPL and may call sub-models. */
export const rlmSystemSchema = z.strictObject({
  name: systemName,
  kind: z.literal('rlm'),
  /** Model id (`provider/model` or `testkit:<policy>`). */
  model: z.string().min(1),
  /** Model behind `llm_query`. @default model */
  subModel: z.string().min(1).optional(),
  /** @default 1 for solver, 2 for coordinator (its children need a REPL) */
  maxDepth: runLimitsSchema.shape.maxDepth,
  maxIterations: runLimitsSchema.shape.maxIterations,
  /** @default 'solver' */
  promptMode: z.enum(['solver', 'coordinator']).default('solver'),
  /** The REPL language: `python` needs `@rlm/sandbox-python` installed. @default 'javascript' */
  repl: replLanguageSchema.default('javascript'),
  /** Built-in driver names from @rlm/prompts. */
  drivers: z.array(z.string().min(1)).default([]),
  /** Budget of each run (tree-wide, as in `createRLM`). */
  budget: budgetConfigSchema.optional(),
});

/** The baseline: one direct call with the context pasted in, cut to fit the model window. */
export const baseSystemSchema = z.strictObject({
  name: systemName,
  kind: z.literal('base'),
  model: z.string().min(1),
  /** Window in tokens used for truncation; the model's own `contextWindow` when absent. */
  contextWindow: z.number().int().positive().optional(),
  /** Tokens kept free for the answer. @default 4_096 */
  maxOutputTokens: z.number().int().positive().default(4_096),
});

/** A system under evaluation. */
export const evalSystemSchema = z.discriminatedUnion('kind', [rlmSystemSchema, baseSystemSchema]);
export type EvalSystemInput = z.input<typeof evalSystemSchema>;
export type EvalSystem = z.output<typeof evalSystemSchema>;
export type RlmSystem = z.output<typeof rlmSystemSchema>;
export type BaseSystem = z.output<typeof baseSystemSchema>;
