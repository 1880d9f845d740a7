import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { labelledRecords } from '@rlm/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../testing/run-cli-in-process.js';
import { createSandbox, type Sandbox } from '../testing/spawn-cli.js';

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = createSandbox();
  writeFileSync(join(sandbox.dir, 'notes.txt'), 'the magic number is 42\n');
});
afterEach(() => sandbox.dispose());

const cli = (args: string[], env: Record<string, string> = {}) =>
  runCliInProcess(args, { cwd: sandbox.dir, env: { ...sandbox.env, ...env } });

const needle = ['run', 'What is the magic number?', '-c', 'notes.txt'];

describe('rlm run progress off a terminal', () => {
  it('prints about a line per turn or second for a run with 3,000 sub-calls', async () => {
    // 30,000 records in batches of 10: one llm_query_batched of 3,000 prompts.
    writeFileSync(join(sandbox.dir, 'records.txt'), labelledRecords({ count: 30_000 }).context);
    const started = Date.now();
    const result = await cli(['run', 'Count the records per label.', '-c', 'records.txt'], {
      RLM_MODEL: 'testkit:chunk-and-aggregate',
    });
    const seconds = (Date.now() - started) / 1000;
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^turn 2 done in \S+: .*3,000 llm_query → testkit\/chunk-and-aggregate/,
      ),
    );
    const turns = lines.filter((line) => /^turn \d+ done/.test(line)).length;
    // The context report, start, final answer, end and trajectory lines, one per turn, and at
    // most one per second the run took (however slow the machine made it).
    expect(lines.length).toBeLessThanOrEqual(5 + turns + Math.ceil(seconds));
  });

  it('prints no progress with --progress none, nor with RLM_PROGRESS=none', async () => {
    for (const [args, env] of [
      [['--progress', 'none'], {}],
      [[], { RLM_PROGRESS: 'none' }],
    ] as const) {
      const result = await cli([...needle, '--model', 'testkit:needle-finder', ...args], env);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe('42\n');
      expect(result.stderr).toMatch(/^context ← notes\.txt: 23 B\nTrajectory: \S+\.jsonl\n$/);
    }
  });

  it('draws the live tree with --progress tree, also off a terminal', async () => {
    writeFileSync(join(sandbox.dir, 'rlm.config.json'), '{ "progress": "plain" }');
    const result = await cli([...needle, '--model', 'testkit:needle-finder', '--progress', 'tree']);
    expect(result.code, result.stderr).toBe(0);
    // The final frame of the tree, cut to 80 columns.
    expect(result.stderr).toMatch(/rlm · testkit\/needle-finder · 2 turns · /);
    expect(result.stderr).toMatch(/^ {2}✓ answer \(text\) 42$/m);
    expect(result.stderr).not.toMatch(/^run \S+ started/m);
  });

  it('refuses an unknown progress mode, naming the flag', async () => {
    const result = await cli([...needle, '--progress', 'loud']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--progress');
    expect(result.stderr).toContain('"tree"|"plain"|"none"');
  });
});
