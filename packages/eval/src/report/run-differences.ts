import { formatSize } from '../generators/parse-size.js';
import type { ResultRow } from '../runner/result-row.js';

/** One way two compared runs were not the same experiment. */
export interface RunDifference {
  /** What differs: the benchmark, the generator seed, the task set, or the context sizes. */
  field: 'benchmark' | 'seed' | 'tasks' | 'sizes';
  /** What run A had, as text (`sniah`, `8k, 32k`, `3 tasks`). */
  a: string;
  b: string;
}

/**
 * How two runs' setups differ, read from their rows: benchmarks, the seeds in generated task ids
 * (`sniah-8k-s1-0`), the task sets and the context sizes. Accuracy and cost deltas between runs
 * that differ here measure the change of task, not of system.
 */
export function runDifferences(a: readonly ResultRow[], b: readonly ResultRow[]): RunDifference[] {
  const differences: RunDifference[] = [];
  const add = (field: RunDifference['field'], valuesA: Set<string>, valuesB: Set<string>) => {
    if (!sameSet(valuesA, valuesB)) differences.push({ field, a: list(valuesA), b: list(valuesB) });
  };
  add(
    'benchmark',
    values(a, (row) => row.benchmark),
    values(b, (row) => row.benchmark),
  );
  add('seed', values(a, seedOf), values(b, seedOf));
  const tasksA = values(a, (row) => row.taskId);
  const tasksB = values(b, (row) => row.taskId);
  if (!sameSet(tasksA, tasksB)) {
    const shared = [...tasksA].filter((id) => tasksB.has(id)).length;
    const tasks = (count: number) => `${count} task${count === 1 ? '' : 's'}`;
    differences.push({
      field: 'tasks',
      a: `${tasks(tasksA.size)} (${shared} shared)`,
      b: `${tasks(tasksB.size)} (${shared} shared)`,
    });
  }
  const sizesA = new Set([...values(a, (row) => String(row.contextChars))].map(Number));
  const sizesB = new Set([...values(b, (row) => String(row.contextChars))].map(Number));
  add('sizes', sizeNames(sizesA), sizeNames(sizesB));
  return differences;
}

/** The differences as one warning line, with the runs named as the user gave them. */
export function describeRunDifferences(
  differences: readonly RunDifference[],
  { labelA = 'A', labelB = 'B' }: { labelA?: string; labelB?: string } = {},
): string | undefined {
  if (differences.length === 0) return undefined;
  const parts = differences.map(
    (difference) =>
      `${difference.field} ${difference.a} in ${labelA}, ${difference.b} in ${labelB}`,
  );
  return `The runs are not the same experiment (${parts.join('; ')}): the deltas mix a change of tasks with any change of system.`;
}

/** The seed a generated task id carries (`-s<seed>-<index>` at its end); none for other tasks. */
function seedOf(row: ResultRow): string | undefined {
  return /-s(\d+)-\d+$/.exec(row.taskId)?.[1];
}

function values(
  rows: readonly ResultRow[],
  pick: (row: ResultRow) => string | undefined,
): Set<string> {
  const found = new Set<string>();
  for (const row of rows) {
    const value = pick(row);
    if (value !== undefined) found.add(value);
  }
  return found;
}

function sizeNames(sizes: Set<number>): Set<string> {
  return new Set([...sizes].sort((left, right) => left - right).map(formatSize));
}

function sameSet(left: ReadonlySet<string>, right: ReadonlySet<string>): boolean {
  return left.size === right.size && [...left].every((value) => right.has(value));
}

function list(set: ReadonlySet<string>): string {
  return set.size === 0 ? 'none' : [...set].join(', ');
}
