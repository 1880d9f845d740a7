#!/usr/bin/env node
// Every package benchmark of `pnpm bench`, run on this checkout and on a baseline checkout (a
// built clone of an earlier commit) in interleaved rounds, with each figure's ratio to the
// baseline. The question it answers: did any figure get more than 10 % worse?
//
//   node scripts/bench/compare-builds.mjs <baseline-checkout> [--rounds N] [--only a,b]
//
// The executor and sandbox benches measure both builds themselves (they take the baseline as an
// argument and alternate inside one process); they run once, with `--quick`. Every other bench
// prints absolute figures, so it runs in both checkouts, alternately, `--rounds` times each
// (default 2; the order flips every round, so the machine's load hits both alike), and each
// figure is the median of its rounds. A line's figures are matched across builds by the line's text
// with its numbers taken out. Which way is worse comes from the line: rates (`/s`, `per s`,
// `chars/ms`, "vs memory") are better higher, everything else (times, sizes, ratios to an ideal)
// better lower. Rows that only one build prints are listed, not compared.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const args = process.argv.slice(2);
const option = (flag, fallback) => {
  const at = args.indexOf(flag);
  return at < 0 ? fallback : args[at + 1];
};
const baseline = args.find(
  (arg, index) => !arg.startsWith('-') && !args[index - 1]?.startsWith('--'),
);
if (baseline === undefined || !existsSync(join(baseline, 'package.json'))) {
  console.error(
    'usage: node scripts/bench/compare-builds.mjs <baseline-checkout> [--rounds N] [--only a,b]\n' +
      '  <baseline-checkout>: a built clone of the commit to compare against (pnpm install && pnpm build)',
  );
  process.exit(2);
}
const baselineRoot = resolve(baseline);
const rounds = Number(option('--rounds', '2'));
const only = option('--only', undefined)?.split(',');
const THRESHOLD = 0.1;

/** Benches that alternate the two builds themselves: run once, their table read as printed. */
const SELF_COMPARING = [
  {
    name: 'executor',
    dir: 'packages/executor',
    args: ['bench/targets.mjs', baselineRoot, '--quick'],
  },
  {
    name: 'sandbox',
    dir: 'packages/sandbox',
    args: ['bench/targets.mjs', baselineRoot, '--quick'],
  },
];
/**
 * Benches with absolute figures: run in each checkout, alternately. `sameScript`: the baseline runs
 * this checkout's script (copied beside its own, so it imports the baseline's build), so only the
 * code under test differs, not the harness (warm-up, forced collections); for benches whose script
 * uses nothing the baseline lacks.
 */
const ABSOLUTE = [
  { name: 'protocol', dir: 'packages/protocol', args: ['bench/run.mjs'], sameScript: true },
  {
    name: 'memory',
    dir: 'packages/memory',
    args: ['--expose-gc', 'bench/run.mjs', '--quick'],
    sameScript: true,
  },
  { name: 'mcp', dir: 'packages/mcp', args: ['bench/run.mjs'] },
  {
    name: 'sandbox-python',
    dir: 'packages/sandbox-python',
    args: ['--expose-gc', 'bench/run.mjs'],
  },
  {
    name: 'eval',
    dir: 'packages/eval',
    args: ['--expose-gc', 'bench/generate.mjs', '1m'],
    sameScript: true,
  },
  { name: 'cli', dir: 'apps/cli', args: ['bench/startup.mjs', '--runs', '3'] },
  { name: 'server', dir: 'apps/server', args: ['bench/replicas.mjs', '--quick'] },
];
const wanted = (bench) => only === undefined || only.includes(bench.name);

function runBench(checkout, bench) {
  let args = bench.args;
  let copied;
  if (bench.sameScript && checkout !== root) {
    const script = args.find((arg) => arg.endsWith('.mjs'));
    copied = join(checkout, bench.dir, dirname(script), `.compare-builds-${process.pid}.mjs`);
    copyFileSync(join(root, bench.dir, script), copied);
    args = args.map((arg) => (arg === script ? copied : arg));
  }
  const result = spawnSync(process.execPath, args, {
    cwd: join(checkout, bench.dir),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (copied !== undefined) rmSync(copied, { force: true });
  if (result.status !== 0) {
    return {
      ok: false,
      output: `${result.stdout}\n${result.stderr}`.trim().split('\n').slice(-15).join('\n'),
    };
  }
  return { ok: true, output: result.stdout };
}

const NUMBER = /-?\d[\d,]*(?:\.\d+)?/g;

/** A figure that is better higher: a rate, or a share of the in-memory backend's rate. */
const RATE = /\/s\b|\/ms\b|per s\b|vs memory/i;

/**
 * Every line with numbers: the line with its numbers replaced by `#` → its figures, each with the
 * way it is better. A Markdown table row takes that from its column's header and its own cell;
 * another line from the run of text each number stands in (columns set apart by 2+ spaces).
 */
function figures(output) {
  const rows = new Map();
  const lines = output.split('\n').map((raw) => stripVTControlCharacters(raw).trim());
  let header = [];
  lines.forEach((line, at) => {
    const isSeparator = (text) => /^\|[\s:|-]+\|$/.test(text ?? '');
    // Headers carry dates, versions and loads, not figures.
    const isHeader = /^Measured|^Node v|load average|\d{4}-\d\d-\d\dT/.test(line);
    if (line === '' || isSeparator(line) || isHeader) return;
    const isRow = line.startsWith('|');
    const cells = isRow ? line.split('|').slice(1, -1) : line.split(/\s{2,}/);
    if (isRow && isSeparator(lines[at + 1])) {
      header = cells;
      return;
    }
    const values = [];
    cells.forEach((cell, column) => {
      const higherBetter = RATE.test(`${isRow ? (header[column] ?? '') : ''} ${cell}`);
      for (const match of cell.matchAll(NUMBER))
        values.push({ value: Number(match[0].replaceAll(',', '')), higherBetter });
    });
    if (values.length === 0) return;
    const key = line.replace(NUMBER, '#').replace(/\s+/g, ' ');
    if (!rows.has(key)) rows.set(key, values);
  });
  return rows;
}

/** Each build's figures, `rounds` times, alternating (the order flips every round). */
function sampleRounds(bench) {
  const samples = { ours: [], base: [] };
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? ['ours', 'base'] : ['base', 'ours'];
    for (const side of order) {
      const run = runBench(side === 'ours' ? root : baselineRoot, bench);
      if (!run.ok) {
        return { failed: `${side === 'ours' ? 'this checkout' : 'the baseline'}:\n${run.output}` };
      }
      samples[side].push(figures(run.output));
    }
  }
  return samples;
}

function compareAbsolute(bench) {
  const samples = sampleRounds(bench);
  if (samples.failed !== undefined) return samples;
  // The median of the rounds: one slow round (a load spike) must not decide a figure.
  const middle = (maps, key, index) =>
    median(maps.map((map) => map.get(key)?.[index]?.value ?? Number.NaN));
  const rows = [];
  const unmatched = [];
  for (const [key, figuresOfRow] of samples.ours[0]) {
    if (!samples.base[0].has(key)) {
      unmatched.push(key);
      continue;
    }
    figuresOfRow.forEach(({ higherBetter }, index) => {
      const ours = middle(samples.ours, key, index);
      const base = middle(samples.base, key, index);
      // A difference of two figures (an "added" column) can be 0 or negative: not a measure.
      if (!Number.isFinite(ours) || !Number.isFinite(base) || base <= 0 || ours <= 0) return;
      const ratio = ours / base;
      const worse = higherBetter ? ratio < 1 - THRESHOLD : ratio > 1 + THRESHOLD;
      rows.push({ key, index, ours, base, ratio, worse });
    });
  }
  return { rows, unmatched };
}

const say = (line) => process.stdout.write(`${line}\n`);
say(
  `compare-builds: this checkout (${root}) against ${baselineRoot}; ${rounds} interleaved rounds; ` +
    `load average at start ${loadavg()
      .map((v) => v.toFixed(1))
      .join(' / ')}`,
);
let worseCount = 0;
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
// A self-comparing bench runs `selfRuns` times: one run's median over a few processes still
// swings ±30 % on this machine, so each row's ratio is the median of its runs' ratios.
const selfRuns = Math.max(1, Math.ceil(rounds / 2));
for (const bench of SELF_COMPARING.filter(wanted)) {
  say(
    `\n## ${bench.name} (both builds measured by the bench itself, interleaved; ${selfRuns} run(s), each row the median ratio)`,
  );
  const rows = new Map();
  let failed;
  for (let run = 0; run < selfRuns && failed === undefined; run++) {
    const result = runBench(root, bench);
    if (!result.ok) {
      failed = result.output;
      break;
    }
    // The bench's own table: `| what | goal | this build | baseline | this / baseline | holds |`.
    // Rows may repeat a name (each isolation has its own "of which" rows): the nth one is keyed n.
    const seen = new Map();
    for (const line of result.output.split('\n')) {
      const cells = line.split('|').map((cell) => cell.trim());
      const ratio = /^(\d+(?:\.\d+)?)×$/.exec(cells[5] ?? '');
      if (ratio === null) continue;
      const nth = (seen.get(cells[1]) ?? 0) + 1;
      seen.set(cells[1], nth);
      const key = nth === 1 ? `${cells[1]}` : `${cells[1]} [${nth}]`;
      const row = rows.get(key) ?? { ratios: [], last: cells };
      row.ratios.push(Number(ratio[1]));
      row.last = cells;
      rows.set(key, row);
    }
  }
  if (failed !== undefined) {
    say(`FAILED:\n${failed}`);
    worseCount += 1;
    continue;
  }
  for (const [what, { ratios, last }] of rows) {
    const value = median(ratios);
    // "ratio to the 800 ms ideal" rows and times: lower is better; none of these is a rate.
    const worse = value > 1 + THRESHOLD;
    if (worse) worseCount += 1;
    const runs =
      ratios.length > 1 ? ` (runs: ${ratios.map((r) => `${r.toFixed(2)}×`).join(', ')})` : '';
    say(
      `${worse ? 'WORSE ' : '      '}${value.toFixed(2)}×  ${what}: ${last[3]} vs ${last[4]} (last run)${runs}`,
    );
  }
}
for (const bench of ABSOLUTE.filter(wanted)) {
  const harness = bench.sameScript
    ? "this checkout's bench script on each build"
    : "each build's own bench";
  say(`\n## ${bench.name} (${harness}, ${rounds} rounds each, alternating; medians)`);
  const result = compareAbsolute(bench);
  if (result.failed !== undefined) {
    say(`FAILED on ${result.failed}`);
    worseCount += 1;
    continue;
  }
  for (const row of result.rows) {
    if (row.worse) worseCount += 1;
    const label = row.key.length > 110 ? `${row.key.slice(0, 107)}…` : row.key;
    say(
      `${row.worse ? 'WORSE ' : '      '}${row.ratio.toFixed(2)}×  [${row.index + 1}] ${row.ours.toPrecision(4)} vs ${row.base.toPrecision(4)}  ${label}`,
    );
  }
  for (const key of result.unmatched) say(`  (only in this checkout) ${key}`);
}
say(
  `\ncompare-builds: ${worseCount === 0 ? 'no figure' : `${worseCount} figure(s)`} more than ${THRESHOLD * 100} % worse than the baseline` +
    `; load average at end ${loadavg()
      .map((v) => v.toFixed(1))
      .join(' / ')}`,
);
process.exit(worseCount === 0 ? 0 : 1);
