import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { ModelResolver } from '../runner/model-resolver.js';
import { runEval } from '../runner/run-eval.js';
import type { ArcGrid } from './arc-task-file.js';
import { ARC_QUERY, loadArcTasks } from './arc-tasks.js';
import { generateArc, generateArcFiles } from './generate-arc.js';

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'eval-arc-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Each rule recomputed cell by cell, independently of the generator's whole-row code. */
function expectedCell(rule: string, grid: ArcGrid, [row, column]: [number, number]): number {
  const height = grid.length;
  const width = grid[0]?.length ?? 0;
  switch (rule) {
    case 'flip-horizontal':
      return grid[row]?.[width - 1 - column] as number;
    case 'flip-vertical':
      return grid[height - 1 - row]?.[column] as number;
    case 'transpose':
      return grid[column]?.[row] as number;
    case 'rotate-180':
      return grid[height - 1 - row]?.[width - 1 - column] as number;
    default:
      return -1;
  }
}

describe('generateArcFiles', () => {
  it('is deterministic per seed, and every pair follows its rule', () => {
    expect(generateArcFiles({ seed: 3 })).toEqual(generateArcFiles({ seed: 3 }));
    expect(generateArcFiles({ seed: 3 })).not.toEqual(generateArcFiles({ seed: 4 }));
    const files = generateArcFiles({ seed: 5, count: 12 });
    expect(new Set(files.map((file) => file.rule)).size).toBe(6);
    for (const { rule, task } of files) {
      for (const { input, output } of [...task.train, ...task.test]) {
        if (rule === 'swap-colours' || rule === 'recolour') {
          // Colour rules keep the shape and change only the colours they name.
          expect(output.map((row) => row.length)).toEqual(input.map((row) => row.length));
          continue;
        }
        output.forEach((row, r) => {
          row.forEach((cell, c) => {
            expect(cell).toBe(expectedCell(rule, input, [r, c]));
          });
        });
      }
    }
  });
});

describe('loadArcTasks', () => {
  it('makes one task per test pair, with the train pairs and the test input but never its output', async () => {
    const dir = await tempDir();
    const [first, second] = generateArcFiles({ count: 2 });
    await writeFile(join(dir, 'b.json'), JSON.stringify(first?.task));
    const twoTests = {
      ...second?.task,
      test: [...(second?.task.test ?? []), ...(first?.task.test ?? [])],
    };
    await writeFile(join(dir, 'a.json'), JSON.stringify({ ...twoTests, name: 'ignored' }));
    await writeFile(join(dir, 'notes.txt'), 'not a task');
    const tasks = await loadArcTasks(dir);
    expect(tasks.map((task) => task.id)).toEqual(['a-t0', 'a-t1', 'b']);
    const task = tasks[2];
    expect(task?.query).toBe(ARC_QUERY);
    expect(task?.context).toEqual({
      train: first?.task.train,
      test: { input: first?.task.test[0]?.input },
    });
    expect(task?.answer).toBe(JSON.stringify(first?.task.test[0]?.output));
    expect(task?.scorer).toEqual({ kind: 'grid_exact' });
    expect(task?.meta).toMatchObject({ benchmark: 'arc', source: join(dir, 'b.json') });
  });

  it.each<[string, string, string]>([
    ['not JSON', '{"train": [', 'bad.json: not JSON'],
    [
      'no train',
      JSON.stringify({ test: [] }),
      'bad.json: train: expected an array of { input, output } pairs',
    ],
    [
      'a colour of 10',
      JSON.stringify({
        train: [{ input: [[0, 1, 10]], output: [[1]] }],
        test: [{ input: [[1]], output: [[1]] }],
      }),
      'bad.json: train[0].input[0][2]: expected an integer 0–9, got 10',
    ],
    [
      'a ragged grid',
      JSON.stringify({
        train: [{ input: [[1]], output: [[1]] }],
        test: [{ input: [[1]], output: [[1, 2], [3]] }],
      }),
      'bad.json: test[0].output[1]: expected 2 cells like row 0, got 1',
    ],
  ])('refuses a file with %s, naming the file and the field', async (_name, text, message) => {
    const dir = await tempDir();
    await writeFile(join(dir, 'bad.json'), text);
    await expect(loadArcTasks(dir)).rejects.toMatchObject({
      code: 'eval.invalid_task',
      message: expect.stringContaining(message),
    });
  });

  it('refuses a directory without task files', async () => {
    await expect(loadArcTasks(await tempDir())).rejects.toMatchObject({
      code: 'eval.invalid_task',
      message: expect.stringContaining('No ARC task files (*.json) in'),
    });
  });
});

describe('the arc benchmark in runEval', () => {
  /** A root model that computes its answer in the REPL from `context.test.input`. */
  const solver =
    (code: string): ModelResolver =>
    () =>
      scriptedModel([
        `\`\`\`repl\nconst answer = ${code};\nprint(answer)\n\`\`\``,
        'FINAL_VAR(answer)',
      ]);
  const tasks = generateArc({ count: 1 }); // rule 0: flip-horizontal

  it('scores 1 for the right grid and 0 for a wrong one, exactly', async () => {
    const run = (code: string) =>
      runEval({
        tasks,
        systems: [{ name: 'rlm', kind: 'rlm', model: 'scripted', maxIterations: 3 }],
        resolveModel: solver(code),
      });
    const right = await run('context.test.input.map((row) => [...row].reverse())');
    expect(right.rows.map((row) => [row.benchmark, row.score, row.passed])).toEqual([
      ['arc', 1, true],
    ]);
    const wrong = await run('context.test.input');
    expect(wrong.rows.map((row) => [row.score, row.passed])).toEqual([[0, false]]);
    expect(wrong.rows[0]?.answer).toBe(
      JSON.stringify(
        tasks[0]?.context && (tasks[0].context as { test: { input: unknown } }).test.input,
      ),
    );
  });
});
