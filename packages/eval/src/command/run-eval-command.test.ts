import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { readResultRows } from '../runner/results-file.js';
import { EVAL_EXIT, type EvalCommandIo, runEvalCommand } from './run-eval-command.js';

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
    const args = [
      '--benchmark',
      'pairs',
      '--sizes',
      '3k',
      '--model',
      'testkit:reference',
      '--prompt-mode',
      'solver,coordinator',
      '--systems',
      'rlm,base',
    ];
    expect(await runEvalCommand([...args, '--out', 'a'], first.io)).toBe(EVAL_EXIT.ok);
    expect(first.stdout()).toMatch(/\| rlm-solver \| 100\.0%/);
    expect(first.stdout()).toMatch(/\| rlm-coordinator \| 100\.0%/);
    expect(first.stdout()).toMatch(/\| base \|/);
    expect(first.stderr()).toContain('3/3');
    expect(await readFile(join(cwd, 'a', 'report.md'), 'utf8')).toContain('# Eval report');

    expect(await runEvalCommand([...args, '--out', 'b', '--systems', 'rlm'], io(cwd).io)).toBe(
      EVAL_EXIT.ok,
    );
    const compare = io(cwd);
    expect(await runEvalCommand(['compare', 'a', 'b'], compare.io)).toBe(EVAL_EXIT.ok);
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
    const run = io(cwd);
    expect(
      await runEvalCommand(
        [
          '--benchmark',
          'file:tasks.jsonl',
          '--model',
          'testkit:reference',
          '--systems',
          'base',
          '--out',
          'out',
        ],
        run.io,
      ),
    ).toBe(EVAL_EXIT.ok);
    const rows = await readResultRows(join(cwd, 'out', 'results.jsonl'));
    expect(rows.map((row) => [row.taskId, row.answer, row.passed, row.benchmark])).toEqual([
      ['mine', '5550123', true, 'sniah'],
      ['unknown', 'UNKNOWN', false, 'custom'],
    ]);
  });

  it('reaches the policies through fake Anthropic servers and the real client with --offline-transport', async () => {
    const cwd = await tempDir('eval-cli-');
    const args = [
      '--benchmark',
      'multidoc',
      '--sizes',
      '4k',
      '--model',
      'testkit:reference',
      '--offline-transport',
      'fake-anthropic',
      '--out',
      'out',
    ];
    expect(await runEvalCommand(args, io(cwd).io)).toBe(EVAL_EXIT.ok);
    const rows = await readResultRows(join(cwd, 'out', 'results.jsonl'));
    expect(rows.map((row) => [row.system, row.passed, row.model])).toEqual([
      ['rlm-solver', true, 'anthropic/claude-sonnet-5-5'],
      ['base', true, 'anthropic/claude-sonnet-5-5'],
    ]);
    // Priced by the client's own table, not the nominal offline price.
    expect(rows.every((row) => row.costUsd > 0)).toBe(true);
  });

  it('exits 130 when cancelled, keeping finished rows and writing their report', async () => {
    const cwd = await tempDir('eval-cli-');
    const controller = new AbortController();
    const run = io(cwd, { signal: controller.signal });
    const write = run.io.stderr.write;
    run.io.stderr.write = (text: string) => {
      if (text.includes(' 1/4 ')) controller.abort();
      return write(text);
    };
    const args = [
      '--benchmark',
      'sniah',
      '--sizes',
      '2k',
      '--tasks',
      '4',
      '--systems',
      'base',
      '--model',
      'testkit:reference',
      '--out',
      'out',
    ];
    expect(await runEvalCommand(args, run.io)).toBe(EVAL_EXIT.cancelled);
    expect(run.stderr()).toContain('Cancelled: 3 attempts not run (use --resume to continue).');
    expect(await readFile(join(cwd, 'out', 'report.md'), 'utf8')).toContain('| base | 100.0%');

    const resumed = io(cwd);
    expect(await runEvalCommand([...args, '--resume'], resumed.io)).toBe(EVAL_EXIT.ok);
    expect(resumed.stderr()).toContain('4/4');
    expect(
      (await readFile(join(cwd, 'out', 'results.jsonl'), 'utf8')).trim().split('\n'),
    ).toHaveLength(4);
  });

  it('exits 2 naming the line of a bad JSONL task', async () => {
    const cwd = await tempDir('eval-cli-');
    await writeFile(
      join(cwd, 'tasks.jsonl'),
      '{"id":"a","query":"q","context":"c","answer":"x"}\n{"id":"b"}\n',
    );
    const run = io(cwd);
    expect(
      await runEvalCommand(
        ['--benchmark', 'file:tasks.jsonl', '--model', 'testkit:reference'],
        run.io,
      ),
    ).toBe(EVAL_EXIT.usage);
    expect(run.stderr()).toContain('tasks.jsonl at line 2');
  });

  it('exits 2 with a message naming the flag for bad or missing options', async () => {
    const cases: [string[], string][] = [
      [['--model', 'testkit:reference'], '--benchmark is required'],
      [['--benchmark', 'quiz', '--model', 'x'], '--benchmark'],
      [['--benchmark', 'sniah', '--model', 'x', '--sizes', '8q'], '--sizes'],
      [['--benchmark', 'sniah', '--model', 'x', '--attempts', '0'], '--attempts'],
      [['--benchmark', 'sniah', '--model', 'x', '--colour'], '--colour is not a known option'],
      [['--benchmark', 'sniah', '--model', 'testkit:genius'], 'unknown offline policy'],
      [
        ['--benchmark', 'sniah', '--model', 'x', '--drivers', 'verify-before-final,nope'],
        '--drivers unknown driver "nope"',
      ],
      [['compare', 'only-one'], 'compare expects two runs'],
    ];
    for (const [argv, message] of cases) {
      const run = io(tmpdir());
      expect(await runEvalCommand(argv, run.io)).toBe(EVAL_EXIT.usage);
      expect(run.stderr()).toContain(message);
    }
  });

  it('exits 2 (a usage error) when a run to compare has no rows', async () => {
    const run = io(await tempDir('eval-cli-'));
    expect(await runEvalCommand(['compare', 'nowhere', 'nothing'], run.io)).toBe(EVAL_EXIT.usage);
    expect(run.stderr()).toContain('No result rows');
  });

  it('prints the usage for --help', async () => {
    const run = io(tmpdir());
    expect(await runEvalCommand(['--help'], run.io)).toBe(EVAL_EXIT.ok);
    expect(run.stdout()).toContain('rlm eval compare <A> <B>');
  });
});
