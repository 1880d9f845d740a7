import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RlmError } from '@rlm/protocol';
import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it, onTestFinished } from 'vitest';
import { summarizeRows } from '../report/summarize-rows.js';
import type { EvalTask } from '../task/eval-task.js';
import { evalTaskSchema } from '../task/eval-task.js';
import type { EvalProgress } from './eval-progress.js';
import type { ModelResolver } from './model-resolver.js';
import { RESULTS_FILE, readResultRows } from './results-file.js';
import { runEval } from './run-eval.js';

/** A fresh temporary directory, removed when the test ends. */
async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const tasks: EvalTask[] = ['a', 'b', 'c'].map((id) =>
  evalTaskSchema.parse({
    id,
    query: `answer ${id}`,
    context: `context of ${id}`,
    answer: id.toUpperCase(),
  }),
);
const base = { name: 'base', kind: 'base', model: 'scripted' } as const;

/** A base model per task whose replies come from `reply(taskId, call)`; counts calls per task. */
function scripted(reply: (taskId: string, call: number) => string, costUsd = 0) {
  const calls = new Map<string, number>();
  const resolveModel: ModelResolver = (_id, { task }) =>
    scriptedModel(() => {
      const call = calls.get(task.id) ?? 0;
      calls.set(task.id, call + 1);
      return { text: reply(task.id, call), costUsd };
    });
  return { resolveModel, calls };
}

const outDir = () => tempDir('eval-run-');

describe('runEval', () => {
  it('scores every attempt and estimates pass@k from the attempts', async () => {
    // Task a: right on the second attempt only; b: always right; c: never.
    const { resolveModel } = scripted((id, call) =>
      id === 'b' || (id === 'a' && call === 1) ? id.toUpperCase() : 'wrong',
    );
    const run = await runEval({ tasks, systems: [base], attempts: 2, resolveModel });
    expect(run.rows).toHaveLength(6);
    expect(
      run.rows
        .filter((row) => row.passed)
        .map((row) => `${row.taskId}${row.attempt}`)
        .sort(),
    ).toEqual(['a1', 'b0', 'b1']);
    const [summary] = summarizeRows(run.rows).systems;
    expect(summary?.accuracy).toBeCloseTo(3 / 6);
    expect(summary?.passAtK).toEqual({ k: 2, value: 2 / 3 });
  });

  it('appends rows as they finish and, on resume, runs only the missing attempts', async () => {
    const dir = await outDir();
    const first = scripted((id) => id.toUpperCase());
    await runEval({
      tasks,
      systems: [base],
      attempts: 2,
      outDir: dir,
      resolveModel: first.resolveModel,
    });
    const path = join(dir, RESULTS_FILE);
    const lines = (await readFile(path, 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(6);
    // Simulate a crash: two whole rows survive, the third was cut mid-write.
    await writeFile(path, `${lines[0]}\n${lines[1]}\n${lines[2]?.slice(0, 30)}`);
    const second = scripted((id) => id.toUpperCase());
    const progress: EvalProgress[] = [];
    const run = await runEval({
      tasks,
      systems: [base],
      attempts: 2,
      outDir: dir,
      resume: true,
      resolveModel: second.resolveModel,
      onProgress: (entry) => progress.push(entry),
    });
    expect([...second.calls.values()].reduce((sum, count) => sum + count, 0)).toBe(4);
    expect(run.rows).toHaveLength(6);
    expect(progress[0]).toMatchObject({ total: 6, completed: 2, resumed: 2 });
    const stored = await readResultRows(path);
    expect(stored.map((row) => `${row.taskId}${row.attempt}`).sort()).toEqual([
      'a0',
      'a1',
      'b0',
      'b1',
      'c0',
      'c1',
    ]);
  });

  it('stops starting attempts once the cost budget is spent', async () => {
    const { resolveModel } = scripted((id) => id.toUpperCase(), 1);
    const run = await runEval({
      tasks,
      systems: [base],
      attempts: 2,
      budget: { maxCostUsd: 2.5 },
      resolveModel,
    });
    expect(run.rows).toHaveLength(3);
    expect(run.stoppedBy).toBe('budget');
    expect(run.pending).toBe(3);
  });

  it('on abort, stops, cancels running attempts and writes no row for them', async () => {
    const dir = await outDir();
    const controller = new AbortController();
    const resolveModel: ModelResolver = (_id, { task }) =>
      scriptedModel([task.id.toUpperCase()], { latencyMs: task.id === 'a' ? 0 : 60_000 });
    const run = await runEval({
      tasks,
      systems: [base],
      concurrency: 2,
      outDir: dir,
      resolveModel,
      signal: controller.signal,
      onProgress: (progress) => {
        if (progress.completed === 1) controller.abort();
      },
    });
    expect(run.stoppedBy).toBe('cancelled');
    expect(run.rows.map((row) => row.taskId)).toEqual(['a']);
    expect((await readResultRows(join(dir, RESULTS_FILE))).map((row) => row.taskId)).toEqual(['a']);
  });

  it('records a failed model call as an error row and keeps going', async () => {
    const resolveModel: ModelResolver = (_id, { task }) =>
      scriptedModel([
        task.id === 'b'
          ? new RlmError({ code: 'model.server_error', message: 'boom', details: { status: 500 } })
          : task.id.toUpperCase(),
      ]);
    const run = await runEval({ tasks, systems: [base], resolveModel });
    expect(run.rows.map((row) => [row.taskId, row.status, row.error?.code ?? null])).toEqual([
      ['a', 'completed', null],
      ['b', 'error', 'model.server_error'],
      ['c', 'completed', null],
    ]);
  });

  it('fails fast on a configuration error such as a missing API key', async () => {
    const resolveModel: ModelResolver = () => {
      throw new RlmError({
        code: 'model.auth',
        message: 'set ANTHROPIC_API_KEY',
        details: { status: undefined, variable: 'ANTHROPIC_API_KEY', option: 'apiKey' },
      });
    };
    await expect(
      runEval({ tasks, systems: [base], resolveModel, concurrency: 2 }),
    ).rejects.toMatchObject({ code: 'model.auth' });
  });

  it('cuts the base context to the window and records how much was cut', async () => {
    const long = evalTaskSchema.parse({
      id: 'long',
      query: 'q',
      context: 'x'.repeat(50_000),
      answer: 'A',
    });
    const { resolveModel } = scripted(() => 'A');
    const run = await runEval({
      tasks: [long],
      systems: [{ ...base, contextWindow: 6_000, maxOutputTokens: 1_000 }],
      resolveModel,
    });
    expect(run.rows[0]?.truncatedChars).toBeGreaterThan(30_000);
    expect(run.rows[0]?.truncatedChars).toBeLessThan(50_000);
  });

  it('rejects invalid systems and counts with the field named', async () => {
    await expect(runEval({ tasks, systems: [base, base] })).rejects.toMatchObject({
      code: 'config.invalid',
      message: expect.stringContaining('used twice'),
    });
    await expect(
      runEval({ tasks, systems: [{ ...base, kind: 'rlm', promptMode: 'boss' } as never] }),
    ).rejects.toMatchObject({ code: 'config.invalid' });
    await expect(runEval({ tasks: [...tasks, ...tasks], systems: [base] })).rejects.toMatchObject({
      message: expect.stringContaining('the id "a" is used twice'),
    });
    await expect(runEval({ tasks, systems: [base], attempts: 0 })).rejects.toMatchObject({
      message: expect.stringContaining('attempts'),
    });
  });
});
