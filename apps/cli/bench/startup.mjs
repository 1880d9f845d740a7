#!/usr/bin/env node
// What a fresh `rlm` process costs before it does any work, median of N fresh processes each:
//   node bench/startup.mjs [--runs N] [--bin path/to/dist/bin.js]
// Rows: `rlm --version` wall time (target ≤ 150 ms), `rlm --help`, and the first invocation: an
// offline `rlm run` over a one-line context with the scripted testkit model (two turns, a sandbox,
// the run store), as CPU beyond Node's own start (target ≤ 50 ms). CPU is the process's own
// (user + system, read by a preloaded hook as it exits), so machine load moves it less than wall
// time; "Node's own start" is the same figure for `node -e 0`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const option = (flag, fallback) => {
  const at = process.argv.indexOf(flag);
  return at < 0 ? fallback : process.argv[at + 1];
};
const runs = Number(option('--runs', '9'));
const bin = resolve(option('--bin', join(here, '../dist/bin.js')));
if (!Number.isInteger(runs) || runs < 1) {
  console.error(`startup bench: --runs takes a whole number of at least 1, got ${runs}`);
  process.exit(2);
}

const scratch = mkdtempSync(join(tmpdir(), 'rlm-startup-bench-'));
const cpuLog = join(scratch, 'cpu.log');
const hook = join(scratch, 'cpu-at-exit.mjs');
writeFileSync(
  hook,
  [
    "import { appendFileSync } from 'node:fs';",
    "process.on('exit', () => {",
    '  const { user, system } = process.cpuUsage();',
    "  appendFileSync(process.env.RLM_BENCH_CPU_LOG, String((user + system) / 1000) + '\\n');",
    '});',
  ].join('\n'),
);
const context = join(scratch, 'notes.txt');
writeFileSync(context, 'Meeting notes. The magic number is 42. Nothing else happened.\n');
const env = {
  PATH: process.env.PATH ?? '',
  NO_COLOR: '1',
  HOME: scratch,
  XDG_CONFIG_HOME: join(scratch, 'config'),
  XDG_DATA_HOME: join(scratch, 'data'),
  RLM_BENCH_CPU_LOG: cpuLog,
};

/** One fresh process: its wall time and its own CPU time, in ms. */
function once(args) {
  writeFileSync(cpuLog, '');
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, ['--import', pathToFileURL(hook).href, ...args], {
    cwd: scratch,
    env,
    encoding: 'utf8',
  });
  const wall = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) {
    throw new Error(`${args.join(' ')} exited ${result.status}:\n${result.stderr}`);
  }
  return { wall, cpu: Number(readFileSync(cpuLog, 'utf8').trim()) };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const cases = [
  ['node -e 0 (Node’s own start)', ['-e', '0']],
  ['rlm --version', [bin, '--version']],
  ['rlm --help', [bin, '--help']],
  [
    'rlm run (first invocation: testkit model, 2 turns)',
    [
      bin,
      'run',
      'What is the magic number?',
      '--context',
      context,
      '--model',
      'testkit:needle-finder',
      '--json',
    ],
  ],
];
const samples = new Map(cases.map(([name]) => [name, []]));
try {
  // Taking turns, so a burst of load on the machine hits every case alike.
  for (let round = 0; round < runs; round += 1) {
    for (const [name, args] of cases) samples.get(name).push(once(args));
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

const node = samples.get(cases[0][0]);
const nodeCpu = median(node.map((s) => s.cpu));
const ms = (value) => `${value.toFixed(0)} ms`;
console.log(
  `rlm start-up, ${bin}: median of ${runs} fresh processes each (Node ${process.version})`,
);
console.log('| case | wall | CPU | CPU beyond Node’s start |');
console.log('| --- | --- | --- | --- |');
for (const [name] of cases) {
  const wall = median(samples.get(name).map((s) => s.wall));
  const cpu = median(samples.get(name).map((s) => s.cpu));
  console.log(
    `| ${name} | ${ms(wall)} | ${ms(cpu)} | ${name.startsWith('node') ? '—' : ms(cpu - nodeCpu)} |`,
  );
}
const version = median(samples.get('rlm --version').map((s) => s.wall));
const first = median(samples.get(cases[3][0]).map((s) => s.cpu)) - nodeCpu;
console.log(
  `targets: rlm --version wall ${ms(version)} (≤ 150 ms: ${version <= 150 ? 'met' : 'missed'}); first invocation CPU beyond Node's start ${ms(first)} (≤ 50 ms: ${first <= 50 ? 'met' : 'missed'})`,
);
