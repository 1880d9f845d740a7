// The performance targets of issue #23 for @rlm/executor, each next to its measured value.
// Run: pnpm --filter @rlm/executor bench [baseline-checkout]   (`pnpm bench` at the root: no baseline)
// With a baseline checkout (a built clone of an earlier commit), both builds are measured in one
// run, interleaved (in this process, or in child processes taking turns when a measure needs a
// fresh process or a process of its own), so machine load hits both alike; the ratio column is the
// meaningful part on a busy machine. `--quick` leaves out the 60 MB records target (the slowest by
// far); `--iterations-only` measures only the per-iteration targets.
import { fork, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  baselineRootOf,
  interleaved as interleavedBuilds,
  median,
  targetsTable,
} from '../../../scripts/bench/targets-table.mjs';
import {
  model,
  REFERENCE_BLOCK,
  referenceTurns,
  repl,
  TURNS_PER_RUN,
  turnOf,
  turnSummary,
  WARM_UP_RUNS,
} from './reference-turn.mjs';

const repoRoot = new URL('../../../', import.meta.url).pathname;
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const iterationsOnly = args.includes('--iterations-only');
const childTask = args.find((arg) => arg.startsWith('--child='))?.slice('--child='.length);
const baselineRoot = baselineRootOf(args, repoRoot);

const loadExecutor = (root) =>
  import(pathToFileURL(resolve(root, 'packages/executor/dist/index.js')).href);
const ITERATION_MEASURED_RUNS = 5;

// ── Measures in processes of their own (per iteration, peak and resident memory, records) ──
const childTasks = {
  /**
   * Runs of the reference workload in a process of their own (one build per process; see
   * reference-turn.mjs): the first run right after the modules load (cold: the JIT has optimized
   * nothing yet), then warm-up runs until the JIT has settled, then the measured ones. A process
   * runs one build only, so neither build's garbage, WASM memory or half-optimized code is in the
   * other's turns.
   */
  async iterations(executor, { isolation }) {
    return referenceTurns(executor, { isolation, measuredRuns: ITERATION_MEASURED_RUNS });
  },
  /**
   * Peak RSS of a 3-iteration run over 50 MB, and what stays resident after it: while the caller
   * still holds its context string, and once it has let go of it too.
   */
  async memory(executor) {
    // V8 hands a collected large string's pages back in the background: read RSS a moment after gc().
    const settledRss = async () => {
      globalThis.gc?.();
      await new Promise((done) => setTimeout(done, 200));
      return process.memoryUsage().rss;
    };
    const empty = await settledRss();
    const dir = mkdtempSync(join(tmpdir(), 'rlm-bench-'));
    try {
      let context = 'All work and no play makes a dull model. '
        .repeat(1_250_000)
        .slice(0, 50_000_000);
      const root = model('bench/root', (request) => {
        const turn = turnOf(request);
        if (turn === 0) return repl('print(context.length)');
        if (turn === 1) return repl('const head = context.slice(0, 200)\nprint(head)');
        return 'FINAL_VAR(head)';
      });
      // The process just before the run: it already holds the caller's context (the run's input).
      const baseline = await settledRss();
      const rlm = executor.createRLM({ model: root, trajectory: { dir } });
      await rlm.completion(context, { query: 'What does it start with?' });
      const peak = process.resourceUsage().maxRSS * 1024;
      await new Promise((done) => setTimeout(done, 300));
      const after = await settledRss();
      context = undefined;
      await new Promise((done) => setTimeout(done, 300));
      const released = await settledRss();
      return {
        peakMb: peak / 2 ** 20,
        residentAboveBaselineMb: (after - baseline) / 2 ** 20,
        releasedAboveBaselineMb: (released - empty) / 2 ** 20,
      };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
  /** Trajectory size of a run over 60 MB whose 3,000 sub-calls each carry a chunk of it. */
  async records(executor) {
    const dir = mkdtempSync(join(tmpdir(), 'rlm-bench-'));
    try {
      const context = 'All work and no play makes a dull model. '
        .repeat(1_500_000)
        .slice(0, 60_000_000);
      const root = model('bench/root', (request) =>
        turnOf(request) === 0
          ? repl(
              'const size = Math.ceil(context.length / 3000)\n' +
                'const rs = await llm_query_batched(Array.from({ length: 3000 }, (_, i) => "Summarize: " + context.slice(i * size, (i + 1) * size)))\n' +
                'print(rs.length)',
            )
          : 'FINAL(done)',
      );
      const sub = model('bench/sub', () => 'ok');
      const rlm = executor.createRLM({
        model: root,
        subModel: sub,
        maxConcurrency: 16,
        trajectory: { dir },
      });
      await rlm.completion(context, { query: 'Summarize.' });
      let bytes = 0;
      for (const name of readdirSync(dir, { recursive: true })) {
        const stat = statSync(join(dir, String(name)));
        if (stat.isFile()) bytes += stat.size;
      }
      return { recordedPercent: (bytes / context.length) * 100 };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

const argValue = (name) => args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
if (childTask !== undefined) {
  const root = argValue('root');
  const result = await childTasks[childTask](await loadExecutor(root), {
    isolation: argValue('isolation'),
  });
  process.send(result);
  process.exit(0);
}

function inChild(task, root, extraArgs = []) {
  return new Promise((done, fail) => {
    const taskArgs = [`--child=${task}`, `--root=${root}`, ...extraArgs];
    const child = fork(new URL(import.meta.url).pathname, taskArgs, {
      execArgv: ['--expose-gc'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let result;
    child.on('message', (message) => {
      result = message;
    });
    child.on('exit', (code) =>
      code === 0 && result ? done(result) : fail(new Error(`${task} exited ${code}`)),
    );
  });
}

const builds = [{ name: 'this build', root: repoRoot }];
if (baselineRoot !== undefined) builds.push({ name: 'baseline', root: baselineRoot });
for (const build of builds) build.executor = await loadExecutor(build.root);

const interleaved = (rounds, measure) => interleavedBuilds(builds, rounds, measure);
const table = targetsTable();
const target = table.target;
const us = (value) => `${value.toFixed(0)} µs`;
const mb = (value) => `${value.toFixed(0)} MB`;

// Each build in processes of its own, taking turns (5 rounds of one process per build, the order
// flipping each round), each process warmed up before it measures: the target is the steady
// per-turn cost the reference engine's figure is, and the cold first run is shown beside it.
const ITERATION_ROUNDS = 5;
for (const [isolation, goal] of [
  ['inline', 100],
  ['worker', 200],
]) {
  const samples = await interleaved(ITERATION_ROUNDS, (build) =>
    inChild('iterations', build.root, [`--isolation=${isolation}`]),
  );
  const summaries = samples.map((list) => turnSummary(list.flatMap((process) => process.warm)));
  const cold = samples.map((list) => list.map((process) => process.cold));
  const measured = ITERATION_ROUNDS * ITERATION_MEASURED_RUNS;
  target(
    `per iteration, ${isolation}: zero-latency model, \`${REFERENCE_BLOCK}\` a turn (median of ${measured} runs of ${TURNS_PER_RUN} in ${ITERATION_ROUNDS} processes, each after ${WARM_UP_RUNS} warm-up runs)`,
    {
      goal: `≤ ${goal} µs`,
      values: summaries.map((summary) => summary.total),
      holds: (v) => v <= goal,
      format: us,
    },
  );
  target(`  of which block-start to block-end (the sandbox's round trip; for the record)`, {
    goal: '—',
    values: summaries.map((summary) => summary.block),
    holds: () => null,
    format: us,
  });
  target(`  of which the rest (the loop's own; for the record)`, {
    goal: '—',
    values: summaries.map((summary) => summary.rest),
    holds: () => null,
    format: us,
  });
  target(`  CPU per turn, all threads of the process (for the record)`, {
    goal: '—',
    values: summaries.map((summary) => summary.cpu),
    holds: () => null,
    format: us,
  });
  for (const [label, key] of [
    ['mean', 'cpuMean'],
    ['p90', 'cpuP90'],
  ]) {
    target(`  CPU per turn, ${label} over every measured turn (for the record)`, {
      goal: '—',
      values: summaries.map((summary) => summary[key]),
      holds: () => null,
      format: us,
    });
  }
  const coldSummaries = cold.map((list) => turnSummary(list));
  for (const [label, key] of [
    ['mean', 'cpuMean'],
    ['p90', 'cpuP90'],
  ]) {
    target(`  cold: CPU per turn, ${label} over the first run's turns (for the record)`, {
      goal: '—',
      values: coldSummaries.map((summary) => summary[key]),
      holds: () => null,
      format: us,
    });
  }
  target(
    `  cold: the first run of ${TURNS_PER_RUN} in a fresh process (median of ${ITERATION_ROUNDS}; for the record)`,
    {
      goal: '—',
      values: cold.map((list) => median(list.map((s) => s.total))),
      holds: () => null,
      format: us,
    },
  );
}

if (iterationsOnly) {
  table.print(builds, baselineRoot);
  process.exit(0);
}

// ── Item 2: fan-out of children, alone and beside a CPU-heavy process ──
async function children(executor) {
  let start = 0;
  let end = 0;
  const rootModel = model('bench/root', (request) =>
    turnOf(request) === 0
      ? repl(
          'const rs = await rlm_query_batched(context.map((c) => ({ prompt: "work", context: c })))',
        )
      : 'FINAL(done)',
  );
  const childModel = model('bench/child', () => repl('FINAL("child " + context)'), 200);
  const rlm = executor.createRLM({
    model: {
      id: 'bench/root',
      complete: (request) =>
        request.messages[0].content.includes('array')
          ? rootModel.complete(request)
          : childModel.complete(request),
    },
    maxDepth: 2,
    maxConcurrency: 4,
    isolation: 'worker',
    onEvent: (event) => {
      if (event.type === 'block-start' && event.depth === 0) start = performance.now();
      if (event.type === 'block-end' && event.depth === 0) end = performance.now();
    },
  });
  await rlm.completion(Array.from({ length: 16 }, (_, i) => `c${i}`));
  return end - start;
}
for (const busy of [false, true]) {
  const spinner = busy
    ? spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' })
    : undefined;
  try {
    for (const build of builds) await children(build.executor);
    const samples = await interleaved(7, (build) => children(build.executor));
    target(
      `16 children × 200 ms at concurrency 4, worker sandboxes${busy ? ', beside a CPU-bound process' : ''} / the 800 ms ideal (median of 7)`,
      {
        goal: '≤ 1.15×',
        values: samples.map((list) => median(list) / 800),
        holds: (v) => v <= 1.15,
        format: (v) => `${v.toFixed(2)}×`,
      },
    );
  } finally {
    spinner?.kill();
  }
}

// ── Item 4: memory (fresh processes, taking turns) ──
{
  const samples = await interleaved(3, (build) => inChild('memory', build.root));
  target('peak RSS, 3 iterations over a 50 MB context (worker sandbox; median of 3 processes)', {
    goal: '≤ 255 MB',
    values: samples.map((list) => median(list.map((s) => s.peakMb))),
    holds: (v) => v <= 255,
    format: mb,
  });
  target(
    "resident after that run, above the process just before it (which holds the caller's context)",
    {
      goal: '≤ 50 MB',
      values: samples.map((list) => median(list.map((s) => s.residentAboveBaselineMb))),
      holds: (v) => v <= 50,
      format: mb,
    },
  );
  target(
    'once the caller has let go of its context too, above the process before it made it (for the record)',
    {
      goal: '—',
      values: samples.map((list) => median(list.map((s) => s.releasedAboveBaselineMb))),
      holds: () => null,
      format: mb,
    },
  );
}

// ── Item 5: records ──
if (!quick) {
  const samples = await interleaved(1, (build) => inChild('records', build.root));
  target('trajectory of a run over 60 MB with 3,000 chunked sub-calls, % of the context', {
    goal: '≤ 5 %',
    values: samples.map((list) => list[0].recordedPercent),
    holds: (v) => v <= 5,
    format: (v) => `${v.toFixed(1)} %`,
  });
}

table.print(builds, baselineRoot);
// Worker pools keep idle workers alive; the numbers are out, so end here.
process.exit(0);
