import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { readResultRows } from '../runner/results-file.js';
import { type EvalCommandOptionsInput, parseEvalCommandOptions } from './eval-command-options.js';
import { runCompareCommand } from './run-compare-command.js';
import { type EvalCommandIo, runEvalCommand } from './run-eval-command.js';

/** A fresh temporary directory, removed when the test ends. */
async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

function io(cwd: string, { signal }: { signal?: AbortSignal } = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const value: EvalCommandIo = {
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: (text: string) => err.push(text) },
    env: {},
    cwd,
    ...(signal === undefined ? {} : { signal }),
  };
  return { io: value, stdout: () => out.join(''), stderr: () => err.join('') };
}

describe('runEvalCommand', () => {
  it('runs a benchmark offline for every prompt mode and the base system, then compares two runs', async () => {
    const cwd = await tempDir('eval-cli-');
    const first = io(cwd);
    const options: EvalCommandOptionsInput = {
      benchmark: 'pairs',
      sizes: ['3k'],
      model: 'testkit:reference',
      modes: ['solver', 'coordinator'],
      systems: ['rlm', 'base'],
    };
    expect(await runEvalCommand({ ...options, out: 'a' }, first.io)).toMatchObject({
      stoppedBy: null,
      pending: 0,
    });
    expect(first.stdout()).toMatch(/\| rlm-solver \| 100\.0%/);
    expect(first.stdout()).toMatch(/\| rlm-coordinator \| 100\.0%/);
    expect(first.stdout()).toMatch(/\| base \|/);
    expect(first.stderr()).toContain('3/3');
    expect(await readFile(join(cwd, 'a', 'report.md'), 'utf8')).toContain('# Eval report');

    await runEvalCommand({ ...options, out: 'b', systems: ['rlm'] }, io(cwd).io);
    const compare = io(cwd);
    await runCompareCommand({ a: 'a', b: 'b' }, compare.io);
    expect(compare.stdout()).toContain('# Comparison: a → b');
    expect(compare.stdout()).toContain('| rlm-solver | 100.0% | 100.0% | ±0.0% |');
    expect(compare.stdout()).toContain('Only in a: base');
  }, 120_000);

  it('runs tasks from a JSONL file, reading contextFile relative to it', async () => {
    const cwd = await tempDir('eval-cli-');
    await writeFile(join(cwd, 'doc.txt'), 'The secret code for falcon-12 is 5550123.');
    const tasks = [
      {
        id: 'mine',
        query: 'What is the secret code for falcon-12?',
        contextFile: 'doc.txt',
        answer: '5550123',
        meta: { benchmark: 'sniah', keys: ['falcon-12'] },
      },
      {
        id: 'unknown',
        query: 'Who?',
        context: 'Nobody.',
        answer: 'Ada',
        scorer: { kind: 'contains' },
      },
    ];
    await writeFile(join(cwd, 'tasks.jsonl'), tasks.map((task) => JSON.stringify(task)).join('\n'));
    await runEvalCommand(
      { benchmark: 'file:tasks.jsonl', model: 'testkit:reference', systems: ['base'], out: 'out' },
      io(cwd).io,
    );
    const rows = await readResultRows(join(cwd, 'out', 'results.jsonl'));
    expect(rows.map((row) => [row.taskId, row.answer, row.passed, row.benchmark])).toEqual([
      ['mine', '5550123', true, 'sniah'],
      ['unknown', 'UNKNOWN', false, 'custom'],
    ]);
  });

  it('reaches the policies through fake Anthropic servers and the real client', async () => {
    const cwd = await tempDir('eval-cli-');
    await runEvalCommand(
      {
        benchmark: 'multidoc',
        sizes: [4_000],
        model: 'testkit:reference',
        offlineTransport: 'fake-anthropic',
        out: 'out',
      },
      io(cwd).io,
    );
    const rows = await readResultRows(join(cwd, 'out', 'results.jsonl'));
    expect(rows.map((row) => [row.system, row.passed, row.model])).toEqual([
      ['rlm-solver', true, 'anthropic/claude-sonnet-5-5'],
      ['base', true, 'anthropic/claude-sonnet-5-5'],
    ]);
    // Priced by the client's own table, not the nominal offline price.
    expect(rows.every((row) => row.costUsd > 0)).toBe(true);
  });

  it('stops when cancelled, keeping finished rows and writing their report; resume runs the rest', async () => {
    const cwd = await tempDir('eval-cli-');
    const controller = new AbortController();
    const run = io(cwd, { signal: controller.signal });
    const write = run.io.stderr.write;
    run.io.stderr.write = (text: string) => {
      if (text.includes(' 1/4 ')) controller.abort();
      return write(text);
    };
    const options: EvalCommandOptionsInput = {
      benchmark: 'sniah',
      sizes: ['2k'],
      tasks: 4,
      systems: ['base'],
      model: 'testkit:reference',
      out: 'out',
    };
    // Tree progress writes every update, so the abort comes right after the first attempt.
    expect(await runEvalCommand({ ...options, progress: 'tree' }, run.io)).toMatchObject({
      stoppedBy: 'cancelled',
      pending: 3,
    });
    expect(await readFile(join(cwd, 'out', 'report.md'), 'utf8')).toContain('| base | 100.0%');

    const resumed = io(cwd);
    expect(await runEvalCommand({ ...options, resume: true }, resumed.io)).toMatchObject({
      stoppedBy: null,
    });
    expect(resumed.stderr()).toContain('4/4');
    expect(
      (await readFile(join(cwd, 'out', 'results.jsonl'), 'utf8')).trim().split('\n'),
    ).toHaveLength(4);
  });

  it('names the line of a bad JSONL task', async () => {
    const cwd = await tempDir('eval-cli-');
    await writeFile(
      join(cwd, 'tasks.jsonl'),
      '{"id":"a","query":"q","context":"c","answer":"x"}\n{"id":"b"}\n',
    );
    await expect(
      runEvalCommand({ benchmark: 'file:tasks.jsonl', model: 'testkit:reference' }, io(cwd).io),
    ).rejects.toMatchObject({ code: 'eval.invalid_task', message: /tasks\.jsonl at line 2/ });
  });

  it('refuses a run to compare that has no rows', async () => {
    const run = io(await tempDir('eval-cli-'));
    await expect(runCompareCommand({ a: 'nowhere', b: 'nothing' }, run.io)).rejects.toMatchObject({
      code: 'eval.invalid_results',
      message: /No result rows/,
    });
  });
});

describe('parseEvalCommandOptions', () => {
  it('fills the defaults and reads sizes given as text', () => {
    expect(
      parseEvalCommandOptions({ benchmark: 'sniah', model: 'x', sizes: ['8k', 1_000] }),
    ).toMatchObject({
      benchmark: { kind: 'builtin', name: 'sniah' },
      sizes: [8_000, 1_000],
      systems: ['rlm', 'base'],
      modes: ['solver'],
      attempts: 1,
      resume: false,
    });
  });

  it('names every bad key', () => {
    const bad = {
      benchmark: 'quiz',
      model: 'x',
      sizes: ['8q'],
      attempts: 0,
      drivers: ['verify-before-final', 'nope'],
      colour: 'red',
    };
    expect(() => parseEvalCommandOptions(bad)).toThrow(
      expect.objectContaining({
        code: 'config.invalid',
        details: expect.objectContaining({
          issues: expect.arrayContaining([
            expect.stringMatching(/^benchmark: expected sniah/),
            expect.stringMatching(/^sizes: /),
            expect.stringMatching(/^attempts: /),
            expect.stringMatching(/^drivers: unknown driver "nope"/),
            expect.stringMatching(/colour/),
          ]),
        }),
      }),
    );
    expect(() => parseEvalCommandOptions({ benchmark: 'sniah' })).toThrow(/model: is required/);
  });
});
