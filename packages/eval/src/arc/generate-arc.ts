import { seededRandom } from '../generators/seeded-random.js';
import type { EvalTask } from '../task/eval-task.js';
import type { ArcGrid, ArcTaskFile } from './arc-task-file.js';
import { arcTasksFromFile } from './arc-tasks.js';

/** The rules the generated suite draws from: each a whole-grid transformation. */
export const ARC_RULES = [
  'flip-horizontal',
  'flip-vertical',
  'transpose',
  'rotate-180',
  'swap-colours',
  'recolour',
] as const;
export type ArcRule = (typeof ARC_RULES)[number];

/** One generated task file, named as the public suites name theirs (by id). */
export interface GeneratedArcFile {
  /** `arc-s1-0`: the file is `<id>.json`. */
  id: string;
  rule: ArcRule;
  task: ArcTaskFile;
}

/** Demonstration pairs per generated task. */
const TRAIN_PAIRS = 3;

/**
 * A small ARC-style suite in the public ARC JSON format, seeded and deterministic: task `index`
 * applies rule `index mod 6` (flips, transpose, a half turn, a swap of two colours, one colour
 * replaced) to random grids of 3–6 by 3–6 cells, with three demonstration pairs and one pair to
 * solve. For offline tests of loading, prompting and scoring; not a measure of reasoning.
 */
export function generateArcFiles({
  seed = 1,
  count = 6,
}: {
  seed?: number;
  count?: number;
} = {}): GeneratedArcFile[] {
  return Array.from({ length: count }, (_, index) => {
    const random = seededRandom(seed * 1_000_003 + index);
    const rule = ARC_RULES[index % ARC_RULES.length] as ArcRule;
    const [from, to] = random.shuffle([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const apply = ruleFunction(rule, { from: from ?? 1, to: to ?? 2 });
    const pair = () => {
      const input = randomGrid(random, { from: from ?? 1 });
      return { input, output: apply(input) };
    };
    return {
      id: `arc-s${seed}-${index}`,
      rule,
      task: { train: Array.from({ length: TRAIN_PAIRS }, pair), test: [pair()] },
    };
  });
}

/** The generated suite as eval tasks (`rlm eval --benchmark arc` without a directory). */
export function generateArc({
  seed = 1,
  count = 6,
}: {
  seed?: number;
  count?: number;
} = {}): EvalTask[] {
  return generateArcFiles({ seed, count }).flatMap((file) =>
    arcTasksFromFile(file.task, { id: file.id, source: `generated:${file.id}` }),
  );
}

function randomGrid(random: ReturnType<typeof seededRandom>, { from }: { from: number }): ArcGrid {
  const height = random.int(3, 6);
  const width = random.int(3, 6);
  const grid = Array.from({ length: height }, () =>
    Array.from({ length: width }, () => (random.next() < 0.5 ? 0 : random.int(1, 9))),
  );
  // Every grid shows the colour the colour rules act on, so the examples reveal the rule.
  const row = grid[random.int(0, height - 1)] as number[];
  row[random.int(0, width - 1)] = from;
  return grid;
}

function ruleFunction(rule: ArcRule, { from, to }: { from: number; to: number }) {
  return (grid: ArcGrid): ArcGrid => {
    switch (rule) {
      case 'flip-horizontal':
        return grid.map((row) => [...row].reverse());
      case 'flip-vertical':
        return [...grid].reverse().map((row) => [...row]);
      case 'transpose':
        return (grid[0] ?? []).map((_, column) => grid.map((row) => row[column] as number));
      case 'rotate-180':
        return [...grid].reverse().map((row) => [...row].reverse());
      case 'swap-colours':
        return grid.map((row) =>
          row.map((cell) => (cell === from ? to : cell === to ? from : cell)),
        );
      case 'recolour':
        return grid.map((row) => row.map((cell) => (cell === from ? to : cell)));
    }
  };
}
