// Issue #23 item 5, the CLI side: `rlm run` over a 60 MB file whose 3,000 `llm_query_batched`
// prompts each carry a 20 KB slice of it (the offline `testkit:chunk-and-aggregate` model, 10
// lines of 2,000 characters a prompt), against a process that only loads the file once.
// Reports wall time, peak RSS (`/usr/bin/time`) and the trajectory's size as a % of the file;
// also the CPU time of each (user + system, all threads: on a shared machine wall time is mostly
// waiting) and the same command over a one-line file, the CLI's fixed cost that any run pays
// before it reads a byte (so the 2× targets can be read as fixed cost + the file's own cost).
// A second table: the same model over an 11 MB file of 60-character lines, so its 18,300 prompts
// are ~600 characters (short records: every sub-call's own records weigh more than its slice).
// Run: node packages/executor/bench/cli-records.mjs [baseline-checkout] [--lines=N] [--small-lines=N]
// With a baseline checkout (a built clone of an earlier commit), both builds run, taking turns.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

const repoRoot = new URL('../../../', import.meta.url).pathname;
const baselineArg = process.argv.slice(2).find((arg) => !arg.startsWith('-'));
// `--lines=N` for a smaller file (a quick check of the script itself).
const lineCount = Number(
  process.argv.find((arg) => arg.startsWith('--lines='))?.slice('--lines='.length) ?? 30_000,
);
const roots = [{ name: 'this build', root: repoRoot }];
if (baselineArg !== undefined) {
  roots.push({
    name: 'baseline',
    root: isAbsolute(baselineArg) ? baselineArg : resolve(repoRoot, baselineArg),
  });
}

const smallLineCount = Number(
  process.argv.find((arg) => arg.startsWith('--small-lines='))?.slice('--small-lines='.length) ??
    183_000,
);

const work = mkdtempSync(join(tmpdir(), 'rlm-cli-records-'));

/** A file of `count` distinct lines of `chars - 1` characters and a newline: no blank line, so a batch of lines is one slice. */
function recordsFile(name, { count, chars }) {
  const path = join(work, name);
  const lines = [];
  for (let line = 0; line < count; line++) {
    const head = `record ${line} billing refund `;
    lines.push((head + 'All work and no play makes a dull model. '.repeat(50)).slice(0, chars - 1));
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
  return { path, bytes: statSync(path).size };
}

/** Wall ms, CPU ms (user + system) and peak RSS (MB) of `node …args`, measured by /usr/bin/time. */
function timed(args, env = {}) {
  const result = spawnSync('/usr/bin/time', ['-f', '%e %M %U %S', process.execPath, ...args], {
    cwd: work,
    // biome-ignore lint/style/noProcessEnv: the CLI is found and run like a user's, on their PATH
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', HOME: work, ...env },
    encoding: 'utf8',
    maxBuffer: 64 * 2 ** 20,
  });
  const [seconds, kb, user, system] = result.stderr
    .trim()
    .split('\n')
    .at(-1)
    .split(' ')
    .map(Number);
  if (result.status !== 0)
    throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr.slice(-2000)}`);
  return {
    ms: seconds * 1000,
    cpuMs: (user + system) * 1000,
    mb: kb / 1024,
    stdout: result.stdout,
  };
}

const load = (file) =>
  timed([
    '-e',
    `const t = require('node:fs').readFileSync(${JSON.stringify(file)}, 'utf8'); if (t.length === 0) process.exit(1)`,
  ]);

function cliRun(root, { path: file, bytes: fileBytes }) {
  const dir = join(work, `trajectories-${Math.random().toString(36).slice(2)}`);
  const run = timed(
    [
      join(root, 'apps/cli/dist/bin.js'),
      'run',
      'How many records are about billing?',
      '-c',
      file,
      '--model',
      'testkit:chunk-and-aggregate',
      '--json',
    ],
    { XDG_DATA_HOME: dir, RLM_TRAJECTORY_DIR: join(dir, 'trajectories') },
  );
  let bytes = 0;
  for (const name of readdirSync(dir, { recursive: true })) {
    const stat = statSync(join(dir, String(name)));
    if (stat.isFile() && String(name).endsWith('.jsonl')) bytes += stat.size;
  }
  rmSync(dir, { recursive: true, force: true });
  return { ...run, recordedPercent: (bytes / fileBytes) * 100 };
}

/** Both builds over one file (and over `tiny`, for the fixed cost), taking turns, best of 2; the table's rows. */
function measure(file, tiny) {
  const rows = roots.map(({ name, root }) => ({ name, root, runs: [], loads: [], fixed: [] }));
  for (let round = 0; round < 2; round++) {
    const order = round % 2 === 0 ? rows : [...rows].reverse();
    for (const row of order) {
      row.loads.push(load(file.path));
      row.runs.push(cliRun(row.root, file));
      row.fixed.push(cliRun(row.root, tiny));
    }
  }
  return rows;
}

function printTable(title, file, rows) {
  const best = (list, key) => Math.min(...list.map((item) => item[key]));
  process.stdout.write(
    `\n${title}: measured ${new Date().toISOString()}, Node ${process.version}, ${cpus().length} cores, load average (1/5/15 min) at the end ${loadavg()
      .map((value) => value.toFixed(1))
      .join(' / ')}; file ${(file.bytes / 1e6).toFixed(0)} MB, best of 2.\n\n`,
  );
  process.stdout.write(
    '| Build | CLI run | load once | time ratio (≤ 2×) | CPU: CLI / load once | CLI peak RSS | load once | RSS ratio (≤ 2×) | CLI over a 1-line file: time, CPU, RSS | trajectory, % of the file (≤ 5 %) |\n|---|---|---|---|---|---|---|---|---|---|\n',
  );
  const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;
  for (const row of rows) {
    const runMs = best(row.runs, 'ms');
    const loadMs = best(row.loads, 'ms');
    const runCpu = best(row.runs, 'cpuMs');
    const loadCpu = best(row.loads, 'cpuMs');
    const runMb = best(row.runs, 'mb');
    const loadMb = best(row.loads, 'mb');
    const fixed = `${seconds(best(row.fixed, 'ms'))}, ${seconds(best(row.fixed, 'cpuMs'))}, ${best(row.fixed, 'mb').toFixed(0)} MB`;
    process.stdout.write(
      `| ${row.name} | ${(runMs / 1000).toFixed(1)} s | ${seconds(loadMs)} | ${(runMs / loadMs).toFixed(1)}× | ${seconds(runCpu)} / ${seconds(loadCpu)} = ${(runCpu / loadCpu).toFixed(1)}× | ${runMb.toFixed(0)} MB | ${loadMb.toFixed(0)} MB | ${(runMb / loadMb).toFixed(1)}× | ${fixed} | ${row.runs[0].recordedPercent.toFixed(1)} % |\n`,
    );
  }
}

try {
  const tiny = recordsFile('tiny.txt', { count: 1, chars: 2_000 });
  const big = recordsFile('big.txt', { count: lineCount, chars: 2_000 });
  printTable('Prompts of 20 KB slices', big, measure(big, tiny));
  if (smallLineCount > 0) {
    const small = recordsFile('small.txt', { count: smallLineCount, chars: 60 });
    printTable('Prompts of ~600 characters (short records)', small, measure(small, tiny));
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
