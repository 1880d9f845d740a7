import { z } from 'zod';

/**
 * How an answer is scored, as data so tasks stay plain JSON. Every scorer yields a score in
 * [0, 1]; `custom` names a function the caller registers with `runEval({ scorers })`.
 */
export const scorerSpecSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('exact') }),
  z.strictObject({ kind: z.literal('normalized_exact') }),
  z.strictObject({
    kind: z.literal('numeric'),
    /** Largest absolute difference still counted as correct. @default 0 */
    tolerance: z.number().nonnegative().default(0),
    /** Read `tolerance` as a fraction of the expected value instead. @default false */
    relative: z.boolean().default(false),
  }),
  z.strictObject({ kind: z.literal('contains') }),
  z.strictObject({
    kind: z.literal('set_f1'),
    /** Items are unordered pairs `a,b`: `b,a` counts as the same item. @default false */
    unorderedPairs: z.boolean().default(false),
  }),
  /** The answer read as a grid (JSON, or rows of digits) equals the expected grid cell for cell. */
  z.strictObject({ kind: z.literal('grid_exact') }),
  z.strictObject({ kind: z.literal('custom'), name: z.string().min(1) }),
]);

/** A scorer as written in a task (defaults not yet applied). */
export type ScorerSpecInput = z.input<typeof scorerSpecSchema>;
/** A validated scorer with its defaults. */
export type ScorerSpec = z.output<typeof scorerSpecSchema>;
