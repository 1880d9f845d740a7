// What every package's `bench/targets.mjs` (issue #23) shares: the optional baseline checkout,
// interleaved rounds, and the table of targets next to their measured values.
import { cpus, loadavg } from 'node:os';
import { isAbsolute, resolve } from 'node:path';

/** The baseline checkout named by the first argument that is not a flag, resolved from the repo. */
export function baselineRootOf(args, repoRoot) {
  const arg = args.find((value) => !value.startsWith('-'));
  if (arg === undefined) return undefined;
  return isAbsolute(arg) ? arg : resolve(repoRoot, arg);
}

export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** ~`bytes` of log-like text with NEEDLE-4242 once every 10,000 lines. */
export function haystack(bytes) {
  const parts = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line =
      i % 10_000 === 5_000
        ? `line ${i} the NEEDLE-4242 is here\n`
        : `line ${i} user=${i % 97} status=ok lorem ipsum dolor sit amet\n`;
    parts.push(line);
    size += line.length;
  }
  return parts.join('').slice(0, bytes);
}

/**
 * Runs `measure(build)` `rounds` times per build, alternating builds each round (the order flips
 * every round too, so load hits both alike), and returns each build's samples.
 */
export async function interleaved(builds, rounds, measure) {
  const samples = builds.map(() => []);
  for (let round = 0; round < rounds; round++) {
    const order = builds.map((_, index) => index);
    if (round % 2 === 1) order.reverse();
    for (const index of order) samples[index].push(...[await measure(builds[index])].flat());
  }
  return samples;
}

const verdict = (holds) => (holds === null ? '—' : holds ? 'yes' : 'no');

/**
 * The targets of one bench: `target()` records one (its goal, each build's value, whether this
 * build meets it) and prints it at once; `print()` writes the whole table at the end.
 */
export function targetsTable() {
  const rows = [];
  return {
    target(what, { goal, values, holds, format }) {
      const row = { what, goal, values: values.map(format), holds: holds(values[0]) };
      if (values.length > 1) row.ratio = `${(values[0] / values[1]).toFixed(2)}×`;
      rows.push(row);
      process.stdout.write(
        `${what}: ${row.values.join(' vs ')} (goal ${goal}) ${verdict(row.holds)}\n`,
      );
    },
    print(builds, baselineRoot) {
      const header = ['Target', 'Goal', ...builds.map((build) => build.name)];
      if (builds.length > 1) header.push('this / baseline');
      header.push('Holds');
      const load = loadavg()
        .map((value) => value.toFixed(1))
        .join(' / ');
      process.stdout.write(
        `\nMeasured ${new Date().toISOString()}, Node ${process.version}, ${cpus().length} cores, load average (1/5/15 min) at the end ${load}${baselineRoot ? `; baseline ${baselineRoot}` : ''}.\n\n`,
      );
      process.stdout.write(`| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|\n`);
      for (const row of rows) {
        const cells = [row.what, row.goal, ...row.values];
        if (builds.length > 1) cells.push(row.ratio);
        cells.push(verdict(row.holds));
        process.stdout.write(`| ${cells.join(' | ')} |\n`);
      }
    },
  };
}
