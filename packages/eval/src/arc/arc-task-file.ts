import { z } from 'zod';

/** One cell: a colour 0–9. */
const cellSchema = z
  .number({ error: (issue) => `expected an integer 0–9, got ${JSON.stringify(issue.input)}` })
  .int({ error: (issue) => `expected an integer 0–9, got ${String(issue.input)}` })
  .min(0, { error: (issue) => `expected an integer 0–9, got ${String(issue.input)}` })
  .max(9, { error: (issue) => `expected an integer 0–9, got ${String(issue.input)}` });

/** A grid: rows of cells, every row as long as the first. */
export const arcGridSchema = z
  .array(z.array(cellSchema, { error: 'expected a row: an array of integers 0–9' }), {
    error: 'expected a grid: an array of rows',
  })
  .min(1, { error: 'expected a grid with at least one row' })
  .superRefine((grid, context) => {
    const width = grid[0]?.length ?? 0;
    if (width === 0)
      context.addIssue({ code: 'custom', path: [0], message: 'expected a non-empty row' });
    for (const [index, row] of grid.entries()) {
      if (row.length !== width) {
        context.addIssue({
          code: 'custom',
          path: [index],
          message: `expected ${width} cells like row 0, got ${row.length}`,
        });
      }
    }
  });
export type ArcGrid = z.infer<typeof arcGridSchema>;

/** An input grid and the output grid the task's rule makes of it. */
export const arcPairSchema = z.object(
  { input: arcGridSchema, output: arcGridSchema },
  { error: 'expected an object with input and output grids' },
);
export type ArcPair = z.infer<typeof arcPairSchema>;

/**
 * A task file in the public ARC JSON format: demonstration pairs (`train`) and the pairs to
 * solve (`test`, whose outputs are the answers). Other keys are ignored.
 */
export const arcTaskFileSchema = z.object(
  {
    train: z
      .array(arcPairSchema, { error: 'expected an array of { input, output } pairs' })
      .min(1, { error: 'expected at least one demonstration pair' }),
    test: z
      .array(arcPairSchema, { error: 'expected an array of { input, output } pairs' })
      .min(1, { error: 'expected at least one pair to solve' }),
  },
  { error: 'expected an object with train and test arrays' },
);
export type ArcTaskFile = z.infer<typeof arcTaskFileSchema>;

/** The grid as JSON on one line: `[[0,1],[2,3]]`, the form answers are compared in. */
export function formatGrid(grid: ArcGrid): string {
  return JSON.stringify(grid);
}
