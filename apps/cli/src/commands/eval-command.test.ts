import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BENCHMARK_NAMES, generateArcFiles, OFFLINE_POLICIES, OFFLINE_TRANSPORTS } from '@rlm/eval';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../testing/run-cli-in-process.js';
import { createSandbox, type Sandbox } from '../testing/spawn-cli.js';

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = createSandbox();
});
afterEach(() => sandbox.dispose());

const cli = (args: string[], env: Record<string, string> = {}) =>
  runCliInProcess(['eval', ...args], { cwd: sandbox.dir, env: { ...sandbox.env, ...env } });

const kebab = (name: string) => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

describe('rlm eval', () => {
  it('runs a benchmark offline and writes its report, its offline costs labelled nominal', async () => {
    const result = await cli([
      '--benchmark',
      'sniah',
      '--sizes',
      '8k',
      '--model',
      'testkit:needle-finder',
      '--out',
      'ev',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^# Eval report/);
    expect(existsSync(join(sandbox.dir, 'ev', 'report.md'))).toBe(true);
    const rows = readFileSync(join(sandbox.dir, 'ev', 'results.jsonl'), 'utf8')
      .trim()
      .split('\n');
    expect(rows).toHaveLength(2);
    // testkit models cost nothing: every cost shown (report, progress, summary) says it is nominal.
    expect(result.stdout).toMatch(/\| \$\d+\.\d{4} nominal \|/);
    expect(result.stdout).toContain('Nominal costs: offline `testkit:` models cost nothing');
    expect(result.stderr).toMatch(/acc \d+\.\d% {2}\$\d+\.\d{4} nominal/);
    expect(readFileSync(join(sandbox.dir, 'ev', 'report.md'), 'utf8')).toContain('Nominal costs:');
    const summary = JSON.parse(readFileSync(join(sandbox.dir, 'ev', 'summary.json'), 'utf8'));
    expect(summary.systems.map((system: { costNominal: boolean }) => system.costNominal)).toEqual([
      true,
      true,
    ]);
  });

  it('takes run’s spellings (--mode, --driver, --max-cost) and the old ones with a deprecation note', async () => {
    const common = ['--benchmark', 'pairs', '--sizes', '3k', '--model', 'testkit:reference'];
    const current = await cli([
      ...common,
      ...['--mode', 'solver', '--mode', 'coordinator', '--driver', 'verify-before-final'],
      ...['--max-cost', '5', '--systems', 'rlm', '--out', 'new'],
    ]);
    expect(current.code, current.stderr).toBe(0);
    expect(current.stderr).not.toContain('deprecated');
    // Coordinator mode needs children with a REPL: its system runs at depth 2, and says so.
    expect(current.stderr).toContain(
      'rlm: --mode coordinator runs the rlm-coordinator system at max depth 2',
    );
    const old = await cli([
      ...common,
      ...['--prompt-mode', 'solver,coordinator', '--drivers', 'verify-before-final'],
      ...['--max-cost-usd', '5', '--systems', 'rlm', '--out', 'old'],
    ]);
    expect(old.code, old.stderr).toBe(0);
    for (const [alias, replacement] of [
      ['--prompt-mode', '--mode'],
      ['--drivers', '--driver'],
      ['--max-cost-usd', '--max-cost'],
    ]) {
      expect(old.stderr).toContain(
        `rlm: ${alias} is deprecated and goes away in the next release; use ${replacement}.`,
      );
    }
    const manifest = (dir: string) =>
      JSON.parse(readFileSync(join(sandbox.dir, dir, 'run.json'), 'utf8')) as { systems: unknown };
    expect(manifest('old').systems).toEqual(manifest('new').systems);
    expect(old.stdout).toMatch(/\| rlm-coordinator \| 100\.0%/);
  });

  it('refuses to replace an earlier eval’s rows unless --force replaces them or --resume continues them', async () => {
    const args = ['--benchmark', 'sniah', '--model', 'testkit:reference', '--systems', 'base'];
    const results = join(sandbox.dir, 'eval-results', 'results.jsonl');
    expect((await cli(args)).code).toBe(0);
    const first = readFileSync(results, 'utf8');
    const again = await cli([...args, '--seed', '2']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`${results} already holds the rows of an earlier eval`);
    expect(again.stderr).toMatch(/--force.*--resume/);
    expect(readFileSync(results, 'utf8')).toBe(first);
    const resumed = await cli([...args, '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    // Resume keeps the row (rewritten, so compare what it says, not its key order).
    expect(JSON.parse(readFileSync(results, 'utf8'))).toEqual(JSON.parse(first));
    const replaced = await cli([...args, '--seed', '2', '--force']);
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(readFileSync(results, 'utf8')).toContain('-s2-0');
    expect(readFileSync(results, 'utf8')).not.toContain('-s1-0');
  });

  it('compares runs of different benchmarks with a warning naming what differs', async () => {
    const common = ['--model', 'testkit:reference', '--systems', 'base'];
    expect((await cli(['--benchmark', 'sniah', ...common, '--out', 'a'])).code).toBe(0);
    const aggregate = ['--benchmark', 'aggregate', '--sizes', '16k', '--seed', '2'];
    expect((await cli([...aggregate, ...common, '--out', 'b'])).code).toBe(0);
    const result = await cli(['compare', 'a', 'b']);
    expect(result.code, result.stderr).toBe(0);
    const named = 'benchmark sniah in a, aggregate in b; seed 1 in a, 2 in b';
    expect(result.stderr).toContain(`Warning: The runs are not the same experiment (${named}`);
    expect(result.stderr).toContain('sizes 8k in a, 16k in b');
    expect(result.stdout).toContain(
      `> **Warning:** The runs are not the same experiment (${named}`,
    );
    const same = await cli(['compare', 'a', 'a', '--json']);
    expect(same.stderr).not.toContain('Warning');
    expect(JSON.parse(same.stdout)).toMatchObject({ differences: [] });
  });

  it('runs ARC task files from a directory (--benchmark arc --tasks DIR) and refuses a bad one by file and field', async () => {
    mkdirSync(join(sandbox.dir, 'arc'));
    for (const file of generateArcFiles({ count: 2 })) {
      writeFileSync(join(sandbox.dir, 'arc', `${file.id}.json`), JSON.stringify(file.task));
    }
    const common = ['--benchmark', 'arc', '--model', 'testkit:reference', '--systems', 'base'];
    const result = await cli([...common, '--tasks', 'arc', '--out', 'ev']);
    expect(result.code, result.stderr).toBe(0);
    const rows = readFileSync(join(sandbox.dir, 'ev', 'results.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { taskId: string; benchmark: string; expected: string });
    expect(rows.map((row) => [row.taskId, row.benchmark])).toEqual([
      ['arc-s1-0', 'arc'],
      ['arc-s1-1', 'arc'],
    ]);
    expect(rows[0]?.expected).toMatch(/^\[\[\d/);
    mkdirSync(join(sandbox.dir, 'bad'));
    writeFileSync(join(sandbox.dir, 'bad', 'x1.json'), JSON.stringify({ train: [], test: [] }));
    const bad = await cli([...common, '--tasks', 'bad', '--out', 'ev2']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      `${join(sandbox.dir, 'bad', 'x1.json')}: train: expected at least one`,
    );
  });

  it('takes drivers per mode: MODE:NAME for one mode, a bare NAME for every mode it fits, named in the report', async () => {
    const result = await cli([
      ...['--benchmark', 'sniah', '--model', 'testkit:reference', '--systems', 'rlm'],
      ...['--mode', 'solver,coordinator', '--driver', 'delegation-first'],
      ...['--driver', 'solver:deadline-final', '--out', 'ev'],
    ]);
    expect(result.code, result.stderr).toBe(0);
    const manifest = JSON.parse(readFileSync(join(sandbox.dir, 'ev', 'run.json'), 'utf8')) as {
      systems: { name: string; drivers: string[] }[];
    };
    expect(manifest.systems.map((system) => [system.name, system.drivers])).toEqual([
      ['rlm-solver', ['deadline-final']],
      ['rlm-coordinator', ['delegation-first']],
    ]);
    const line = (name: string, mode: string, drivers: string) =>
      `| ${name} | rlm | testkit:reference | ${mode} | javascript | ${drivers} |`;
    for (const text of [
      result.stdout,
      readFileSync(join(sandbox.dir, 'ev', 'report.md'), 'utf8'),
    ]) {
      expect(text).toContain(line('rlm-solver', 'solver', 'deadline-final'));
      expect(text).toContain(line('rlm-coordinator', 'coordinator', 'delegation-first'));
    }
    // A comparison with a run without drivers says what changed.
    const plain = await cli([
      ...['--benchmark', 'sniah', '--model', 'testkit:reference', '--systems', 'rlm'],
      ...['--mode', 'solver', '--out', 'ev0'],
    ]);
    expect(plain.code, plain.stderr).toBe(0);
    const compared = await cli(['compare', 'ev0', 'ev']);
    expect(compared.stdout).toContain('- rlm-solver: drivers none → deadline-final');
  });

  // One test per case: each starts the CLI, which takes 7–9 s at load 40+, so eleven in one
  // test could outlast a single test's limit on a loaded machine.
  it.each<[string[], string]>([
    [['--model', 'testkit:reference'], 'rlm: --benchmark is required'],
    [['--benchmark', 'quiz', '--model', 'x'], 'rlm: --benchmark: expected sniah'],
    [['--benchmark', 'sniah', '--model', 'x', '--sizes', '8q'], '--sizes: expected sizes'],
    [['--benchmark', 'sniah', '--model', 'x', '--attempts', '0'], '--attempts: expected a whole'],
    [['--benchmark', 'sniah', '--model', 'x', '--driver', 'nope'], '--driver: unknown driver'],
    [['--benchmark', 'sniah', '--model', 'x', '--colour'], "unknown option '--colour'"],
    [
      [
        '--benchmark',
        'sniah',
        '--model',
        'x',
        '--mode',
        'solver,coordinator',
        '--driver',
        'solver:delegation-first',
      ],
      '--driver: "solver:delegation-first" does not fit: delegation-first conflicts with solver mode',
    ],
    [
      ['--benchmark', 'arc', '--model', 'x', '--sizes', '8k'],
      '--sizes: does not apply to the arc benchmark (its tasks are grids of their own size)',
    ],
    [
      ['--benchmark', 'sniah', '--model', 'x', '--tasks', 'dir'],
      '--tasks: expected a whole number of 1 or more (a directory of ARC task files only with the arc benchmark), got "dir"',
    ],
    [['--benchmark', 'sniah', '--model', 'x', '--repl', 'ruby'], 'rlm: --repl: Invalid option'],
    [
      ['--benchmark', 'sniah', '--model', 'x', '--mode', 'coordinator', '--max-depth', '1'],
      '--mode coordinator needs --max-depth 2 or more',
    ],
    [['--benchmark', 'sniah', '--model', 'testkit:genius'], 'Unknown testkit policy "genius"'],
    [
      ['--benchmark', 'sniah', '--model', 'x', '--force', '--resume'],
      '--force: replaces the earlier rows, while resume keeps them',
    ],
    [['compare', 'only-one'], "missing required argument 'b'"],
    [['compare', 'nowhere', 'nothing'], 'No result rows'],
  ])('exits 2 naming the bad or missing flag: %j', async (argv, message) => {
    const result = await cli(argv);
    expect(result.code, argv.join(' ')).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it('shares rlm run --cache’s cache with --cache: a second eval answers its repeated sub-calls from it and reports them', async () => {
    const evalWithCache = (out: string) =>
      cli([
        '--benchmark',
        'aggregate',
        '--sizes',
        '20k',
        '--systems',
        'rlm',
        '--model',
        'testkit:chunk-and-aggregate',
        '--cache',
        '--out',
        out,
      ]);
    const first = await evalWithCache('first');
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).not.toContain('## Sub-call cache');
    const second = await evalWithCache('second');
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('## Sub-call cache');
    const [row] = readFileSync(join(sandbox.dir, 'second', 'results.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(row.cachedCalls).toBeGreaterThan(0);
    expect(second.stdout).toMatch(new RegExp(`\\| rlm-solver \\| ${row.cachedCalls} \\| \\$`));
    // The cache is the run store's, as for rlm run: rlm cache stats sees its entries.
    const stats = await runCliInProcess(['cache', 'stats', '--json'], {
      cwd: sandbox.dir,
      env: sandbox.env,
    });
    expect(JSON.parse(stats.stdout).entries).toBeGreaterThan(0);
  });

  it('prints complete help: every flag, compare, and every offline policy', async () => {
    const result = await cli(['--help']);
    expect(result.code).toBe(0);
    for (const flag of [
      '--benchmark',
      '--sizes',
      '--mode',
      '--repl',
      '--driver',
      '--max-cost',
      '--resume',
      '--cache',
    ]) {
      expect(result.stdout).toContain(`${flag} `);
    }
    expect(result.stdout).toContain('compare [options] <a> <b>');
    for (const name of OFFLINE_POLICIES) expect(result.stdout).toContain(`testkit:${kebab(name)}`);
    // The choices help shows (and the shell completes) are @rlm/eval's own lists.
    for (const name of [...BENCHMARK_NAMES, ...OFFLINE_TRANSPORTS]) {
      expect(result.stdout).toContain(`"${name}"`);
    }
    // The old spellings still work, but help shows only the current ones.
    expect(result.stdout).not.toMatch(/--prompt-mode|--drivers|--max-cost-usd/);
  });
});
