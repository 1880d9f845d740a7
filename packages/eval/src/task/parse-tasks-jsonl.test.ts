import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { loadTasks } from './load-tasks.js';
import { parseTasksJsonl } from './parse-tasks-jsonl.js';
import { readTaskContext } from './read-task-context.js';

/** A fresh temporary directory, removed when the test ends. */
async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const good = JSON.stringify({ id: 't1', query: 'q?', context: 'ctx', answer: '4' });

describe('parseTasksJsonl', () => {
  it('reads tasks, skips blank lines and fills scorer and meta defaults', () => {
    const tasks = parseTasksJsonl(
      `${good}\n\n${JSON.stringify({ id: 't2', query: 'q', contexts: ['a', { b: 1 }], answer: 'x', scorer: { kind: 'numeric' } })}\n`,
    );
    expect(tasks.map((task) => task.id)).toEqual(['t1', 't2']);
    expect(tasks[0]?.scorer).toEqual({ kind: 'normalized_exact' });
    expect(tasks[1]?.scorer).toEqual({ kind: 'numeric', tolerance: 0, relative: false });
    expect(tasks[0]?.meta).toEqual({});
  });

  it('names the line and field of an invalid task', () => {
    const text = `${good}\n${JSON.stringify({ id: 't2', query: '', context: 'c', answer: 'a' })}\n`;
    expect(() => parseTasksJsonl(text, { source: 'x.jsonl' })).toThrow(
      expect.objectContaining({
        code: 'eval.invalid_task',
        details: { line: 2, issues: [expect.stringMatching(/^query:/)] },
      }),
    );
  });

  it('reports broken JSON, a missing context, two contexts and an unknown scorer with their line', () => {
    const cases = [
      '{"id": "t",',
      JSON.stringify({ id: 't', query: 'q', answer: 'a' }),
      JSON.stringify({ id: 't', query: 'q', context: 'c', contextFile: 'f', answer: 'a' }),
      JSON.stringify({ id: 't', query: 'q', context: 'c', answer: 'a', scorer: { kind: 'fuzzy' } }),
    ];
    for (const line of cases) {
      expect(() => parseTasksJsonl(`\n${line}`)).toThrow(
        expect.objectContaining({
          code: 'eval.invalid_task',
          details: expect.objectContaining({ line: 2 }),
        }),
      );
    }
  });

  it('rejects a duplicate id, naming the first use', () => {
    expect(() => parseTasksJsonl(`${good}\n${good}`)).toThrow(
      expect.objectContaining({ message: expect.stringContaining('already used on line 1') }),
    );
  });
});

describe('loadTasks', () => {
  it('resolves contextFile against the task file and reads it when the task runs', async () => {
    const dir = await tempDir('eval-tasks-');
    await writeFile(join(dir, 'doc.txt'), 'the document');
    await writeFile(
      join(dir, 'tasks.jsonl'),
      `${JSON.stringify({ id: 'f', query: 'q', contextFile: 'doc.txt', answer: 'a' })}\n`,
    );
    const [task] = await loadTasks(join(dir, 'tasks.jsonl'));
    expect(task?.contextFile).toBe(join(dir, 'doc.txt'));
    expect(await readTaskContext(task as NonNullable<typeof task>)).toBe('the document');
  });

  it('fails with eval.invalid_task for a missing file', async () => {
    await expect(loadTasks(join(tmpdir(), 'no-such-eval-file.jsonl'))).rejects.toMatchObject({
      code: 'eval.invalid_task',
    });
  });
});
