import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportRlmpaperLog } from '@rlm/executor';
import { readTrajectory } from '@rlm/trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../testing/run-cli-in-process.js';
import { createSandbox, type Sandbox, spawnCli } from '../testing/spawn-cli.js';

let sandbox: Sandbox;
let trajectory: string;
const rlm = (args: readonly string[]) =>
  runCliInProcess(args, { cwd: sandbox.dir, env: sandbox.env });

beforeAll(async () => {
  sandbox = createSandbox();
  writeFileSync(
    join(sandbox.dir, 'notes.txt'),
    'filler text. The magic number is 4242. more filler',
  );
  const run = await rlm([
    'run',
    'What is the magic number?',
    '-c',
    'notes.txt',
    '--model',
    'testkit:needle-finder',
    '--json',
  ]);
  expect(run.code, run.stderr).toBe(0);
  const listed = await rlm(['runs', '--json']);
  trajectory = (JSON.parse(listed.stdout) as { runs: { trajectory: string }[] }).runs[0]
    ?.trajectory as string;
}, 120_000);
afterAll(() => sandbox.dispose());

describe('rlm trace --jsonl', () => {
  it('writes every record whole, one per line, so jq finds the sub-calls', async () => {
    // The file itself packs records: a plain filter finds no sub-call there.
    const stored = readFileSync(trajectory, 'utf8').trim().split('\n');
    expect(stored.some((line) => /"kind":"(packed|group)"/.test(line))).toBe(true);
    const { code, stdout } = await rlm(['trace', 'last', '--jsonl']);
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    const records = lines.map(
      (line) => JSON.parse(line) as { kind: string; event?: { type: string } },
    );
    expect(
      records.every(
        (record) =>
          record.kind === 'header' || record.kind === 'event' || record.kind === 'model-exchange',
      ),
    ).toBe(true);
    expect(records.filter((record) => record.event?.type === 'subcall-end')).toHaveLength(1);
    expect(records).toEqual(JSON.parse(JSON.stringify(await readTrajectory(trajectory))));
  });

  it('is the same as --format jsonl and refuses to be combined with --html', async () => {
    const long = await rlm(['trace', 'last', '--format', 'jsonl']);
    const short = await rlm(['trace', 'last', '--jsonl']);
    expect(long.stdout).toBe(short.stdout);
    const both = await rlm(['trace', 'last', '--jsonl', '--html', 'x.html']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--html writes the page and --format jsonl prints records');
    const unknown = await rlm(['trace', 'last', '--format', 'csv']);
    expect(unknown.stderr).toContain(
      '--format csv is not a trace format; expected one of tree, jsonl, rlmpaper.',
    );
  });
});

describe('rlm trace --format rlmpaper', () => {
  it("writes the reference engine's log: a metadata line, then one line per root turn", async () => {
    const { code, stdout } = await rlm(['trace', 'last', '--format', 'rlmpaper']);
    expect(code).toBe(0);
    expect(stdout).toBe(exportRlmpaperLog(await readTrajectory(trajectory)));
    const lines = stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({ type: 'metadata', root_model: 'testkit/needle-finder' });
    expect(lines.slice(1).map((line) => [line.type, line.iteration])).toEqual([
      ['iteration', 1],
      ['iteration', 2],
    ]);
    expect(lines[2].code_blocks[0].result.rlm_calls).toHaveLength(1);
  });
});

describe('the built binary', () => {
  it('writes plain JSONL and the rlmpaper log', async () => {
    const env = { ...sandbox.env, XDG_DATA_HOME: join(sandbox.dir, 'xdg') };
    const plain = await spawnCli(['trace', trajectory, '--jsonl'], { cwd: sandbox.dir, env });
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toContain('"type":"subcall-end"');
    const paper = await spawnCli(['trace', trajectory, '--format', 'rlmpaper'], {
      cwd: sandbox.dir,
      env,
    });
    expect(paper.code, paper.stderr).toBe(0);
    expect(JSON.parse(paper.stdout.split('\n')[0] ?? '')).toMatchObject({ type: 'metadata' });
  });
});
