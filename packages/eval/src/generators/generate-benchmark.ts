import { z } from 'zod';
import { generateArc } from '../arc/generate-arc.js';
import type { EvalTask } from '../task/eval-task.js';
import { generateAggregate } from './generate-aggregate.js';
import { generateMultidoc } from './generate-multidoc.js';
import { generatePairs } from './generate-pairs.js';
import { generateSniah } from './generate-sniah.js';

/** The built-in benchmark generators. */
export const BENCHMARK_NAMES = ['sniah', 'aggregate', 'pairs', 'multidoc', 'arc'] as const;
export const benchmarkNameSchema = z.enum(BENCHMARK_NAMES);
export type BenchmarkName = z.infer<typeof benchmarkNameSchema>;

export interface GenerateBenchmarkOptions {
  /** Context sizes in characters; tasks are generated for each. */
  sizes: readonly number[];
  /** @default 1 */
  seed?: number;
  /** Tasks per size (`arc`: tasks in all, its sizes ignored). @default 1 */
  count?: number;
  /** `sniah` only: needles per task. @default 1 */
  needles?: number;
}

/**
 * Generates a built-in benchmark at every size: the same options always give the same tasks.
 *
 * @example
 * const tasks = generateBenchmark('sniah', { sizes: [8_000, 128_000], count: 2 });
 */
export function generateBenchmark(
  name: BenchmarkName,
  { sizes, seed = 1, count = 1, needles = 1 }: GenerateBenchmarkOptions,
): EvalTask[] {
  // ARC grids have the size their puzzle needs: the suite is generated once, not per size.
  if (name === 'arc') return generateArc({ seed, count });
  return sizes.flatMap((size) => {
    switch (name) {
      case 'sniah':
        return generateSniah({ size, seed, count, needles });
      case 'aggregate':
        return generateAggregate({ size, seed, count });
      case 'pairs':
        return generatePairs({ size, seed, count });
      case 'multidoc':
        return generateMultidoc({ size, seed, count });
      default:
        return assertNever(name);
    }
  });
}

function assertNever(name: never): never {
  throw new TypeError(`Unknown benchmark: ${String(name)}`);
}
