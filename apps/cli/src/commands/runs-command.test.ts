import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../testing/run-cli-in-process.js';
import { createSandbox, type Sandbox, spawnCli } from '../testing/spawn-cli.js';

let sandbox: Sandbox;
let now = Date.parse('2026-11-29T12:00:00Z');

/** `rlm …args` in this process, in the sandbox, at the test's clock. */
function rlm(args: readonly string[]) {
  return runCliInProcess(args, { cwd: sandbox.dir, env: sandbox.env, now: () => now });
}

const QUERIES = ['Where is the first needle?', 'Where is the second needle?'];
let ids: string[] = [];

beforeAll(async () => {
  sandbox = createSandbox();
  writeFileSync(
    join(sandbox.dir, 'notes.txt'),
    'filler text. The magic number is 4242. more filler',
  );
  for (const query of QUERIES) {
    const run = await rlm([
      'run',
      query,
      '-c',
      'notes.txt',
      '--model',
      'testkit:needle-finder',
      '--json',
    ]);
    expect(run.code, run.stderr).toBe(0);
  }
  const listed = await rlm(['runs', '--json']);
  ids = (JSON.parse(listed.stdout) as { runs: { id: string }[] }).runs.map((run) => run.id);
}, 120_000);
afterAll(() => sandbox.dispose());

describe('rlm runs', () => {
  it('lists the recorded runs newest first with their query, status, model, cost and tokens', async () => {
    const { code, stdout } = await rlm(['runs']);
    expect(code).toBe(0);
    const [head, second, first] = stdout.trimEnd().split('\n');
    expect(head).toMatch(/^ID\s+STARTED \(UTC\)\s+STATUS\s+MODEL\s+COST\s+TOKENS\s+QUERY$/);
    expect(second).toMatch(
      new RegExp(
        `^${ids[0]}  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d  completed  testkit:needle-finder  \\$0\\.0000 +[\\d,]+  Where is the second needle\\?$`,
      ),
    );
    expect(first).toContain(`${ids[1]}`);
    expect(first).toContain('Where is the first needle?');
  });

  it('prints JSON with the trajectory of each run', async () => {
    const { stdout } = await rlm(['runs', '--json']);
    const { runs } = JSON.parse(stdout) as {
      runs: { id: string; query: string; status: string; tokens: number; trajectory: string }[];
    };
    expect(runs.map((run) => run.query)).toEqual([...QUERIES].reverse());
    expect(runs[0]?.status).toBe('completed');
    expect(runs[0]?.tokens).toBeGreaterThan(0);
    expect(runs[0]?.trajectory).toBe(
      join(sandbox.env['XDG_DATA_HOME'] ?? '', 'rlm', 'trajectories', `${ids[0]}.jsonl`),
    );
  });

  it('filters by status, start time and count, and says when nothing matches', async () => {
    const limited = JSON.parse((await rlm(['runs', '--json', '--limit', '1'])).stdout) as {
      runs: unknown[];
    };
    expect(limited.runs).toHaveLength(1);
    const failed = await rlm(['runs', '--status', 'error,cancelled']);
    expect(failed.stdout).toBe('');
    expect(failed.stderr).toContain('match the filters');
    const completed = JSON.parse((await rlm(['runs', '--json', '--status', 'completed'])).stdout);
    expect(completed.runs).toHaveLength(2);
    // The runs were made now (real time); a day after that, `--since 1h` finds none.
    now = Date.now() + 86_400_000;
    const recent = JSON.parse((await rlm(['runs', '--json', '--since', '1h'])).stdout);
    expect(recent.runs).toHaveLength(0);
    const dated = JSON.parse((await rlm(['runs', '--json', '--since', '2000-01-01'])).stdout);
    expect(dated.runs).toHaveLength(2);
  });

  it('names the bad flag and what it expects', async () => {
    const status = await rlm(['runs', '--status', 'failed']);
    expect(status.code).toBe(2);
    expect(status.stderr).toContain('--status failed is not a run status; expected one of');
    const since = await rlm(['runs', '--since', 'yesterday-ish']);
    expect(since.stderr).toContain('--since yesterday-ish is neither a duration');
    const limit = await rlm(['runs', '--limit', '0']);
    expect(limit.stderr).toContain('--limit 0 is not a whole number from 1 to 1000.');
  });
});

describe('last and last~N', () => {
  it('name the newest run and the ones before it in rlm trace', async () => {
    const last = await rlm(['trace', 'last']);
    expect(last.code, last.stderr).toBe(0);
    expect(last.stdout).toContain('query: Where is the second needle?');
    const before = await rlm(['trace', 'last~1']);
    expect(before.stdout).toContain('query: Where is the first needle?');
  });

  it('say how many runs there are when last~N goes past the oldest', async () => {
    const result = await rlm(['trace', 'last~2']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('last~2 names the run 2 before the newest, but');
    expect(result.stderr).toContain('holds only 2 runs; see them with rlm runs.');
  });

  it('name the same run in rlm replay and rlm resume', async () => {
    const replay = await rlm(['replay', 'last~1', '-c', 'notes.txt']);
    expect(replay.stdout, replay.stderr).toContain('Reproduces:');
    const resume = await rlm(['resume', 'last', '-c', 'notes.txt']);
    // A finished run cannot be resumed: the message names the run `last` resolved to.
    expect(resume.stderr).toContain(`Run ${ids[0]} already finished (completed)`);
  });
});

describe('the built binary', () => {
  it('lists runs and traces the last one', async () => {
    const env = { ...sandbox.env, XDG_DATA_HOME: join(sandbox.dir, 'xdg') };
    writeFileSync(join(sandbox.dir, 'other.txt'), 'The magic number is 77.');
    const run = await spawnCli(
      ['run', 'What is the magic number?', '-c', 'other.txt', '--model', 'testkit:needle-finder'],
      { cwd: sandbox.dir, env },
    );
    expect(run.code, run.stderr).toBe(0);
    const runs = await spawnCli(['runs'], { cwd: sandbox.dir, env });
    expect(runs.code, runs.stderr).toBe(0);
    expect(runs.stdout).toContain('completed  testkit:needle-finder');
    expect(runs.stdout).toContain('What is the magic number?');
    const trace = await spawnCli(['trace', 'last'], { cwd: sandbox.dir, env });
    expect(trace.code, trace.stderr).toBe(0);
    expect(trace.stdout).toContain('query: What is the magic number?');
  });
});
