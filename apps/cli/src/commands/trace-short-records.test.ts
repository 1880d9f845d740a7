import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../testing/run-cli-in-process.js';
import { createSandbox, type Sandbox } from '../testing/spawn-cli.js';

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = createSandbox();
});
afterEach(() => sandbox.dispose());

/** 6,000 distinct lines of ~60 characters: prompts of ten of them are ~600 characters. */
const context = Array.from({ length: 6_000 }, (_, line) =>
  `ticket ${line} ${(line * 7919).toString(36)} ${line % 4 === 0 ? 'billing refund' : 'shipping delay'} please`.padEnd(
    59,
    '.',
  ),
).join('\n');

describe('a run whose sub-calls carry short records', () => {
  it('records a small file that trace, --html and replay read in full', async () => {
    writeFileSync(join(sandbox.dir, 'tickets.txt'), context);
    const cli = (args: string[]) => runCliInProcess(args, { cwd: sandbox.dir, env: sandbox.env });
    const run = await cli([
      'run',
      'How many tickets are about billing?',
      '-c',
      'tickets.txt',
      '--model',
      'testkit:chunk-and-aggregate',
      '--json',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const { trajectoryPath, answer } = JSON.parse(run.stdout) as {
      trajectoryPath: string;
      answer: string;
    };
    expect(JSON.parse(answer)).toMatchObject({ billing: 1_500 });
    const text = readFileSync(trajectoryPath, 'utf8');
    expect(text).toContain('"kind":"group"');
    // 600 prompts of ~600 characters: recorded one by one they were over twice the file.
    expect(statSync(trajectoryPath).size).toBeLessThan(context.length / 4);

    const trace = await cli(['trace', trajectoryPath, '--context', 'tickets.txt']);
    expect(trace.code, trace.stderr).toBe(0);
    expect(trace.stdout.match(/↳ llm_query testkit\/chunk-and-aggregate ✓/g)).toHaveLength(600);
    const html = await cli([
      'trace',
      trajectoryPath,
      '--context',
      'tickets.txt',
      '--html',
      'run.html',
    ]);
    expect(html.code, html.stderr).toBe(0);
    const page = readFileSync(join(sandbox.dir, 'run.html'), 'utf8');
    expect(page).toContain('ticket 5990 ');

    const replayed = await cli(['replay', trajectoryPath, '--context', 'tickets.txt']);
    expect(replayed.stderr).toBe('');
    expect(replayed.stdout).toMatch(/^Reproduces: \d+ events, status completed, answer: /);
  });
});
