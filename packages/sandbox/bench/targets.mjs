// The performance targets of issue #23 for @rlm/sandbox, each next to its measured value.
// Run: pnpm --filter @rlm/sandbox bench [baseline-checkout]   (`pnpm bench` at the root: no baseline)
// With a baseline checkout (a built clone of an earlier commit), both builds run in this one
// process, interleaved round by round, so machine load hits both alike; the ratio column is the
// meaningful part on a busy machine. Needs a build (dist/) of this checkout and of the baseline.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  baselineRootOf,
  haystack,
  interleaved as interleavedBuilds,
  median,
  targetsTable,
} from '../../../scripts/bench/targets-table.mjs';
import { nativeStringTargets } from './native-strings.mjs';

const repoRoot = new URL('../../../', import.meta.url).pathname;
const baselineRoot = baselineRootOf(process.argv.slice(2), repoRoot);

const load = async (root) =>
  import(pathToFileURL(resolve(root, 'packages/sandbox/dist/index.js')).href);
const builds = [{ name: 'this build', sandbox: await load(repoRoot) }];
if (baselineRoot !== undefined) {
  builds.push({ name: 'baseline', sandbox: await load(baselineRoot) });
}

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
/**
 * Minor page faults of this process so far (all threads), or NaN where /proc is missing: each
 * fault is a fresh page touched, which cost 2–5 µs on a VM some days (0.2–0.5 µs others).
 */
const minorFaults = () => {
  try {
    // Field 10 of /proc/self/stat; the fields after the command name's closing parenthesis.
    return Number(readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ')[7]);
  } catch {
    return Number.NaN;
  }
};
async function must(sandbox, code) {
  const result = await sandbox.execute(code);
  if (result.error) throw new Error(`${code}: ${result.error.message}`);
  return result;
}

const interleaved = (rounds, measure) => interleavedBuilds(builds, rounds, measure);
const table = targetsTable();
const target = table.target;
const us = (value) => `${value.toFixed(0)} µs`;
const ms = (value) => `${value.toFixed(value < 10 ? 2 : 0)} ms`;

// ── Item 1: block overhead (the reference workload's trivial block) ──
const TRIVIAL = 'x = 1 + 1; print(x)';
/** Median µs of a trivial block per build, 10 rounds of 100 (after 50 to warm up). */
async function blockRoundTrip(isolation, { options = {}, execute = {}, setup } = {}) {
  const open = await Promise.all(
    builds.map((build) => build.sandbox.createSandbox({ isolation, ...options })),
  );
  if (setup !== undefined) for (const sandbox of open) await sandbox.execute(setup);
  const run = async (sandbox) => {
    const result = await sandbox.execute(TRIVIAL, execute);
    if (result.error) throw new Error(`${TRIVIAL}: ${result.error.message}`);
  };
  for (const sandbox of open) for (let i = 0; i < 50; i++) await run(sandbox);
  const samples = await interleaved(10, async (build) => {
    const sandbox = open[builds.indexOf(build)];
    const times = [];
    for (let i = 0; i < 100; i++) {
      const started = performance.now();
      await run(sandbox);
      times.push((performance.now() - started) * 1000);
    }
    return times;
  });
  for (const sandbox of open) await sandbox.dispose();
  return samples.map(median);
}
target('block round trip, inline (median)', {
  goal: '≤ 50 µs',
  values: await blockRoundTrip('inline'),
  holds: (v) => v <= 50,
  format: us,
});
// No target of its own: the executor's per-iteration target (≤ 200 µs) covers it.
target('block round trip, worker (median)', {
  goal: '—',
  values: await blockRoundTrip('worker'),
  holds: () => null,
  format: us,
});
// For the record: the same block in a sandbox set up as the executor's is (its four sub-call
// functions, a context, and the run's signal passed to every block).
const answer = { description: 'answers', call: async () => 'ok' };
const asExecutor = {
  options: {
    context: 'a short context',
    functions: {
      llm_query: answer,
      llm_query_batched: answer,
      rlm_query: answer,
      rlm_query_batched: answer,
    },
  },
  execute: { signal: new AbortController().signal },
};
// For the record: the same block once earlier blocks left 20 variables (5 each of strings, arrays,
// plain objects and functions), whose types every block names.
const TWENTY_VARIABLES = Array.from(
  { length: 20 },
  (_, i) =>
    [
      `var s${i} = 'text ${i}';`,
      `var a${i} = [${i}, ${i + 1}];`,
      `var o${i} = { n: ${i}, tag: 'x' };`,
      `function f${i}() { return ${i}; }`,
    ][i % 4],
).join('\n');
target('block round trip, inline, with 20 variables of earlier blocks (median)', {
  goal: '—',
  values: await blockRoundTrip('inline', { setup: TWENTY_VARIABLES }),
  holds: () => null,
  format: us,
});
for (const isolation of ['inline', 'worker']) {
  target(`block round trip, ${isolation}, set up as the executor's sandbox (median)`, {
    goal: '—',
    values: await blockRoundTrip(isolation, asExecutor),
    holds: () => null,
    format: us,
  });
}

// ── Item 2: CPU per warm create + dispose ──
for (const isolation of ['inline', 'worker']) {
  for (const build of builds) {
    const warm = await build.sandbox.createSandbox({ isolation });
    await warm.dispose();
  }
  // The window includes 250 ms after the dispose: a pooled worker builds its next blank engine
  // then (see blank-engine.ts), and that work belongs to the cycle.
  const samples = await interleaved(15, async (build) => {
    const before = cpuMs();
    const faultsBefore = minorFaults();
    const sandbox = await build.sandbox.createSandbox({ isolation });
    await sandbox.dispose();
    await new Promise((done) => setTimeout(done, 250));
    return [{ cpu: cpuMs() - before, faults: minorFaults() - faultsBefore }];
  });
  target(`CPU per warm create + dispose, ${isolation} (median, all threads)`, {
    goal: '≤ 10 ms',
    values: samples.map((list) => median(list.map((s) => s.cpu))),
    holds: (v) => v <= 10,
    format: ms,
  });
  target(`  minor page faults in that window (for the record; median)`, {
    goal: '—',
    values: samples.map((list) => median(list.map((s) => s.faults))),
    holds: () => null,
    format: (v) => (Number.isNaN(v) ? 'n/a' : v.toFixed(0)),
  });
}

// For the record: how long a worker sandbox takes to be ready when its pooled worker had time to
// prepare (a child's sandbox in a fan-out); the previous sandbox was disposed 50 ms before.
{
  const samples = await interleaved(15, async (build) => {
    const previous = await build.sandbox.createSandbox({ isolation: 'worker' });
    await previous.dispose();
    await new Promise((done) => setTimeout(done, 50));
    const started = performance.now();
    const sandbox = await build.sandbox.createSandbox({ isolation: 'worker' });
    const took = performance.now() - started;
    await sandbox.dispose();
    return took;
  });
  target('worker sandbox ready, its pooled worker idle 50 ms before (median, wall)', {
    goal: '—',
    values: samples.map(median),
    holds: () => null,
    format: ms,
  });
}

// ── Item 3: the first helper call against a warm one and the same scan in QuickJS ──
// Made at once after create, and (on a second sandbox) after a pause standing for a model turn.
const SETTLE_MS = 1_000;
{
  const text = haystack(20_000_000);
  const samples = await interleaved(5, async (build) => {
    const creating = performance.now();
    const sandbox = await build.sandbox.createSandbox({ isolation: 'worker', context: text });
    // A sandbox with a long payload is ready once its scan side is: the creation pays for that.
    const created = performance.now() - creating;
    let settled;
    try {
      const first = (await must(sandbox, 'await count("NEEDLE-4242")')).executionTime;
      settled = await build.sandbox.createSandbox({ isolation: 'worker', context: text });
      // As in a run: the executor starts the sandbox while the first model call is in flight.
      await new Promise((done) => setTimeout(done, SETTLE_MS));
      const afterTurn = (await must(settled, 'await count("NEEDLE-4242")')).executionTime;
      const warm = median(
        await Promise.all(
          [0, 1, 2].map(
            async () => (await must(sandbox, 'await count("NEEDLE-4242")')).executionTime,
          ),
        ),
      );
      const guest = (await must(sandbox, '(context.match(/NEEDLE-4242/g) || []).length'))
        .executionTime;
      return [{ created, first, afterTurn, warm, guest }];
    } finally {
      await sandbox.dispose();
      await settled?.dispose();
    }
  });
  const firsts = samples.map((list) => median(list.map((s) => s.first)));
  const ratios = samples.map((list) => median(list.map((s) => s.first / s.warm)));
  const versusGuest = samples.map((list) => median(list.map((s) => s.first / s.guest)));
  const afterTurnRatios = samples.map((list) => median(list.map((s) => s.afterTurn / s.warm)));
  target('first helper call over 20 MB / a warm call (median of 5 sandboxes)', {
    goal: '≤ 3×',
    values: ratios,
    holds: (v) => v <= 3,
    format: (v) => `${v.toFixed(1)}×`,
  });
  target(
    `first helper call over 20 MB made ${SETTLE_MS} ms after create (a model turn) / a warm call`,
    {
      goal: '≤ 3×',
      values: afterTurnRatios,
      holds: (v) => v <= 3,
      format: (v) => `${v.toFixed(1)}×`,
    },
  );
  target('first helper call over 20 MB / the same scan in QuickJS', {
    goal: '≤ 1×',
    values: versusGuest,
    holds: (v) => v <= 1,
    format: (v) => `${v.toFixed(2)}×`,
  });
  target('first helper call over 20 MB (for the record)', {
    goal: '—',
    values: firsts,
    holds: () => null,
    format: ms,
  });
  target(`first helper call over 20 MB made ${SETTLE_MS} ms after create (for the record)`, {
    goal: '—',
    values: samples.map((list) => median(list.map((s) => s.afterTurn))),
    holds: () => null,
    format: ms,
  });
  target('a warm helper call over 20 MB (for the record)', {
    goal: '—',
    values: samples.map((list) => median(list.map((s) => s.warm))),
    holds: () => null,
    format: ms,
  });
  target('worker sandbox with that 20 MB context created (for the record; median, wall)', {
    goal: '—',
    values: samples.map((list) => median(list.map((s) => s.created))),
    holds: () => null,
    format: ms,
  });
}

// ── Issue #39 item 1: idiomatic searches over a 50 MB context, native methods vs interpreter ──
await nativeStringTargets(target, builds[0].sandbox);

table.print(builds, baselineRoot);
// Worker pools keep idle workers alive; the numbers are out, so end here.
process.exit(0);
