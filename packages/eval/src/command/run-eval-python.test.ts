import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closePythonPool } from '@rlm/sandbox-python';
import { readTrajectory, trajectoryEvents } from '@rlm/trace';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { readResultRows } from '../runner/results-file.js';
import { parseEvalCommandOptions } from './eval-command-options.js';
import { type EvalCommandIo, runEvalCommand } from './run-eval-command.js';

afterAll(() => closePythonPool());

function io(cwd: string): { io: EvalCommandIo; stdout: () => string } {
  const out: string[] = [];
  const value: EvalCommandIo = {
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: () => undefined },
    env: {},
    cwd,
  };
  return { io: value, stdout: () => out.join('') };
}

// Each attempt opens a Python interpreter (a load of seconds on a busy machine for the first).
describe("runEvalCommand({ repl: 'python' })", { timeout: 240_000 }, () => {
  it('runs the rlm systems in Python REPLs, with offline policies writing Python', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'eval-python-'));
    onTestFinished(() => rm(cwd, { recursive: true, force: true }));
    for (const model of ['testkit:reference', 'testkit:needle-finder']) {
      const out = io(cwd);
      const dir = model.slice('testkit:'.length);
      await runEvalCommand(
        {
          benchmark: 'sniah',
          sizes: ['8k'],
          tasks: 2,
          systems: ['rlm'],
          model,
          repl: 'python',
          out: dir,
        },
        out.io,
      );
      expect(out.stdout(), model).toMatch(/\| rlm-solver \| 100\.0%/);
      const rows = await readResultRows(join(cwd, dir, 'results.jsonl'));
      expect(rows.map((row) => row.status)).toEqual(['completed', 'completed']);
      for (const row of rows) {
        const records = await readTrajectory(String(row.trajectoryPath));
        expect(records[0], model).toMatchObject({ kind: 'header', repl: 'python' });
        const code = trajectoryEvents(records).flatMap((event) =>
          event.type === 'block-start' ? [event.code] : [],
        );
        expect(code.join('\n'), model).toMatch(/^import json$/m);
      }
    }
  });

  it('refuses a language no REPL runs, naming repl', () => {
    expect(() =>
      parseEvalCommandOptions({ benchmark: 'sniah', model: 'testkit:reference', repl: 'ruby' }),
    ).toThrow(expect.objectContaining({ message: expect.stringContaining('repl') }));
  });
});
