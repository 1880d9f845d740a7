import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { needleHaystack } from '@rlm/testkit';
import { readTrajectory, trajectoryEvents } from '@rlm/trace';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../testing/run-cli-in-process.js';
import { createSandbox, type Sandbox } from '../testing/spawn-cli.js';

let sandbox: Sandbox;
const task = needleHaystack({ chars: 1_000_000, seed: 21, depth: 0.6 });
beforeEach(() => {
  sandbox = createSandbox();
  writeFileSync(join(sandbox.dir, 'haystack.txt'), task.context);
});
afterEach(() => sandbox.dispose());

// Each run loads Pyodide for its interpreter (seconds, many more on a busy machine) and starts
// more interpreters for children: room well beyond the package's 60 s.
const PYTHON_RUN = { timeout: 240_000 };
const cli = (args: string[]) => runCliInProcess(args, { cwd: sandbox.dir, env: sandbox.env });

interface JsonResult {
  answer: string;
  trajectoryPath: string;
}

describe('rlm run --repl python', PYTHON_RUN, () => {
  it('says on stderr that the interpreter is loading, then when it is ready', async () => {
    writeFileSync(join(sandbox.dir, 'notes.txt'), 'the magic number is 7\n');
    const result = await cli([
      'run',
      'What is the magic number?',
      '-c',
      'notes.txt',
      '--repl',
      'python',
      '--model',
      'testkit:needle-finder',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stderr.split('\n');
    const started = lines.findIndex((line) => /^run \S+ started/.test(line));
    expect(lines[started + 1]).toBe(
      'loading the Python interpreter (Pyodide)… (the first turn starts once it is ready)',
    );
    const ready = lines.findIndex((line) => /^Python interpreter ready in \S+$/.test(line));
    expect(ready).toBeGreaterThan(started + 1);
    expect(lines.findIndex((line) => line.startsWith('turn 1 done'))).toBeGreaterThan(ready);
  });

  it('finds the needle in a 1 MB haystack offline, fanning out with llm_query_batched', async () => {
    const result = await cli([
      'run',
      task.query,
      '-c',
      'haystack.txt',
      '--repl',
      'python',
      '--model',
      'testkit:needle-finder',
      '--json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const { answer, trajectoryPath } = JSON.parse(result.stdout) as JsonResult;
    expect(answer).toBe(task.answer);
    const records = await readTrajectory(trajectoryPath);
    expect(records[0]).toMatchObject({ kind: 'header', repl: 'python' });
    const events = trajectoryEvents(records);
    expect(events.find((event) => event.type === 'run-start')).toMatchObject({ repl: 'python' });
    // One chunk of about 20,000 characters per sub-call: about fifty, all from one batched call.
    expect(events.filter((event) => event.type === 'subcall-start').length).toBeGreaterThan(45);
    const code = events.flatMap((event) => (event.type === 'block-start' ? [event.code] : []));
    expect(code.join('\n')).toContain('replies = llm_query_batched([');

    const replayed = await cli(['replay', trajectoryPath, '-c', 'haystack.txt']);
    expect(replayed.code, replayed.stderr).toBe(0);
  });

  it('runs a recursive rlm_query tree with a Python REPL at every depth', async () => {
    const result = await cli(
      [
        'run',
        task.query,
        '-c',
        'haystack.txt',
        '--model',
        'testkit:delegate-to-child',
        '--max-depth',
        '2',
        '--json',
      ].concat(['--repl', 'python']),
    );
    expect(result.code, result.stderr).toBe(0);
    const { answer, trajectoryPath } = JSON.parse(result.stdout) as JsonResult;
    expect(answer).toBe(task.answer);
    const starts = trajectoryEvents(await readTrajectory(trajectoryPath)).filter(
      (event) => event.type === 'run-start',
    );
    expect(starts.map((event) => [event.depth, event.type === 'run-start' && event.repl])).toEqual([
      [0, 'python'],
      [1, 'python'],
      [1, 'python'],
    ]);
  });
});

describe('rlm eval --repl python', PYTHON_RUN, () => {
  it('runs the rlm system in Python REPLs, the offline policy writing Python', async () => {
    const result = await cli(
      ['eval', '--benchmark', 'sniah', '--sizes', '8k', '--systems', 'rlm', '--out', 'ev'].concat([
        '--model',
        'testkit:needle-finder',
        '--repl',
        'python',
      ]),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/\| rlm-solver \| 100\.0%/);
    const [row] = readFileSync(join(sandbox.dir, 'ev', 'results.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { trajectoryPath: string });
    const records = await readTrajectory(String(row?.trajectoryPath));
    expect(records[0]).toMatchObject({ kind: 'header', repl: 'python' });
  });
});

describe('the repl setting', () => {
  it('is read from RLM_REPL and shown by rlm config with its source', async () => {
    const result = await runCliInProcess(['config'], {
      cwd: sandbox.dir,
      env: { ...sandbox.env, RLM_REPL: 'python' },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^repl\s+python\s+env RLM_REPL$/m);
  });

  it('refuses a language no REPL runs, naming the flag, exit 2', async () => {
    const result = await cli(['run', 'q', '--repl', 'ruby', '--model', 'testkit:needle-finder']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('repl');
    expect(result.stderr).toContain('javascript');
  });

  it('prints the Python system prompt with rlm prompts show --repl python', async () => {
    const result = await cli(['prompts', 'show', '--repl', 'python', '--max-depth', '2']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('working inside a Python REPL loop');
    expect(result.stdout).toContain('`rlm_query(prompt, context=…, system_prompt=…, model=…)`');
  });
});
