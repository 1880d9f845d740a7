import { jsonValueSchema } from '@rlm/protocol';
import { z } from 'zod';
import { scorerSpecSchema } from '../scorers/scorer-spec.js';

/** Free-form task metadata; `benchmark` and `contextChars` are filled in by the generators. */
export const taskMetaSchema = z.record(z.string(), jsonValueSchema);

/**
 * One evaluation task. Exactly one of `context` (inline text or JSON), `contextFile` (a path,
 * relative to the JSONL file it came from) or `contexts` (several payloads) carries the input.
 */
export const evalTaskSchema = z
  .strictObject({
    id: z.string().min(1),
    query: z.string().min(1),
    context: jsonValueSchema.optional(),
    contextFile: z.string().min(1).optional(),
    contexts: z.array(jsonValueSchema).min(1).optional(),
    /** The expected answer as text (numbers as their decimal form, sets one item per line). */
    answer: z.string(),
    scorer: scorerSpecSchema.default({ kind: 'normalized_exact' }),
    meta: taskMetaSchema.default({}),
  })
  .superRefine((task, context) => {
    const given = ['context', 'contextFile', 'contexts'].filter(
      (key) => task[key as 'context' | 'contextFile' | 'contexts'] !== undefined,
    );
    if (given.length !== 1) {
      context.addIssue({
        code: 'custom',
        path: ['context'],
        message: `expected exactly one of context, contextFile, contexts (got ${given.length === 0 ? 'none' : given.join(', ')})`,
      });
    }
  });

/** A task as written in JSONL (scorer and meta may be left out). */
export type EvalTaskInput = z.input<typeof evalTaskSchema>;
/** A validated task. */
export type EvalTask = z.output<typeof evalTaskSchema>;
