// Benchmarks of the RLM loop (see README "Benchmarks"). Run: pnpm --filter @rlm/executor bench
// Each number is a median over repetitions; ratios compare against the ideal named beside them.
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as executor from '../dist/index.js';
import {
  median,
  model,
  referenceTurns,
  repl,
  TURNS_PER_RUN,
  turnOf,
  turnSummary,
  WARM_UP_RUNS,
} from './reference-turn.mjs';

const { createRLM } = executor;
const only = process.argv[2];

const fmt = (value, digits = 1) => value.toFixed(digits);

/**
 * The loop per turn on the reference workload, measured as the targets table measures it (see
 * reference-turn.mjs: 40 warm-up runs of 50 turns, then the median of the measured runs), here
 * with 15 measured runs of each workload in this one process.
 */
async function loopOverhead() {
  const rows = [];
  const workloads = [
    { what: 'the reference turn, `inline` sandbox', isolation: 'inline', code: true },
    { what: 'the reference turn, `worker` sandbox', isolation: 'worker', code: true },
    { what: 'a turn without code (for the record)', isolation: 'inline', code: false },
  ];
  for (const workload of workloads) {
    const { warm } = await referenceTurns(executor, { ...workload, measuredRuns: 15 });
    const summary = turnSummary(warm);
    const parts = workload.code
      ? `; block-start to block-end ${fmt(summary.block, 0)} µs, the loop's own rest ${fmt(summary.rest, 0)} µs`
      : '';
    rows.push(
      `| per iteration, ${workload.what}: zero-latency model, ${TURNS_PER_RUN}-iteration runs after ${WARM_UP_RUNS} warm-up runs | median ${fmt(summary.total, 0)} µs${parts}; CPU ${fmt(summary.cpu, 0)} µs (per turn: mean ${fmt(summary.cpuMean, 0)} µs, p90 ${fmt(summary.cpuP90, 0)} µs) |`,
    );
  }
  return rows;
}

async function invocationOverhead() {
  const rows = [];
  for (const isolation of ['inline', 'worker']) {
    const samples = [];
    for (let rep = 0; rep < 15; rep++) {
      const root = model('bench/root', () => 'FINAL(ok)');
      const rlm = createRLM({ model: root, isolation, firstTurnGuard: false });
      const started = performance.now();
      await rlm.completion('context');
      samples.push(performance.now() - started);
    }
    rows.push(
      `| per-invocation overhead (${isolation}: prompt build, sandbox create + dispose, one zero-latency call) | ${fmt(median(samples))} ms |`,
    );
  }
  return rows;
}

async function fanOut() {
  const samples = [];
  for (let rep = 0; rep < 5; rep++) {
    let start = 0;
    let end = 0;
    const root = model('bench/root', (request) =>
      turnOf(request) === 0
        ? repl('const rs = await llm_query_batched(Array.from({ length: 64 }, (_, i) => "q" + i))')
        : 'FINAL(done)',
    );
    const sub = model('bench/sub', () => 'answer', 200);
    const rlm = createRLM({
      model: root,
      subModel: sub,
      maxConcurrency: 16,
      isolation: 'inline',
      onEvent: (event) => {
        if (event.type === 'block-start') start = performance.now();
        if (event.type === 'block-end') end = performance.now();
      },
    });
    await rlm.completion('context');
    samples.push(end - start);
  }
  const ms = median(samples);
  return [
    `| 64 \`llm_query\` × 200 ms, concurrency 16 (ideal 800 ms) | ${fmt(ms, 0)} ms = ${fmt(ms / 800, 2)}× |`,
  ];
}

async function childrenOnce(isolation) {
  let start = 0;
  let end = 0;
  let failed = 0;
  const root = model(
    'bench/root',
    (request) => {
      if (request.messages[0].content.includes('array')) {
        return turnOf(request) === 0
          ? repl(
              'const rs = await rlm_query_batched(context.map((c) => ({ prompt: "work", context: c })))',
            )
          : 'FINAL(done)';
      }
      return repl('FINAL("child " + context)');
    },
    0,
  );
  const childLatency = model('bench/root', () => repl('FINAL("child " + context)'), 200);
  const rlm = createRLM({
    model: {
      id: 'bench/root',
      complete: (request) =>
        request.messages[0].content.includes('array')
          ? root.complete(request)
          : childLatency.complete(request),
    },
    maxDepth: 2,
    maxConcurrency: 4,
    isolation,
    onEvent: (event) => {
      if (event.type === 'block-start' && event.depth === 0) start = performance.now();
      if (event.type === 'block-end' && event.depth === 0) end = performance.now();
      if (event.type === 'run-end' && event.depth === 1 && event.status !== 'completed') failed++;
    },
  });
  const contexts = Array.from({ length: 16 }, (_, i) => `c${i}`);
  await rlm.completion(contexts);
  return { ms: end - start, failed };
}

async function children() {
  const rows = [];
  for (const isolation of ['inline', 'worker']) {
    const samples = [];
    let failed = 0;
    const reps = isolation === 'worker' ? 50 : 10;
    for (let rep = 0; rep < reps; rep++) {
      const run = await childrenOnce(isolation);
      samples.push(run.ms);
      failed += run.failed;
    }
    const ms = median(samples);
    rows.push(
      `| 16 \`rlm_query\` children × 200 ms, concurrency 4, ${isolation} sandboxes (ideal 800 ms) | ${fmt(ms, 0)} ms = ${fmt(ms / 800, 2)}×; failed children: ${failed} of ${reps * 16} over ${reps} repetitions |`,
    );
  }
  return rows;
}

async function trajectorySize() {
  const dir = mkdtempSync(join(tmpdir(), 'rlm-bench-'));
  try {
    const context = 'All work and no play makes a dull model. '
      .repeat(1_250_000)
      .slice(0, 50_000_000);
    const root = model('bench/root', (request) => {
      const turn = turnOf(request);
      if (turn === 0) return repl('print(context.length)');
      if (turn === 1) return repl('const head = context.slice(0, 200)\nprint(head)');
      return 'FINAL_VAR(head)';
    });
    const rlm = createRLM({ model: root, trajectory: { dir } });
    const result = await rlm.completion(context, { query: 'What does it start with?' });
    const bytes = statSync(result.trajectoryPath).size;
    const rssMb = process.resourceUsage().maxRSS / 1024;
    return [
      `| trajectory size, 3 iterations over a 50 MB context (worker sandbox) | ${fmt(bytes / 1024)} KB |`,
      `| peak RSS of that run (whole process: 50 MB string on the host + ~100 MB WASM memory in the worker) | ${fmt(rssMb, 0)} MB |`,
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function inChild(name) {
  return new Promise((resolve, reject) => {
    const child = fork(new URL(import.meta.url).pathname, [name], {
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    child.on('exit', (code) =>
      code === 0 ? resolve(out.trim().split('\n')) : reject(new Error(`${name} exited ${code}`)),
    );
  });
}

const suites = { loopOverhead, invocationOverhead, fanOut, children, trajectorySize };

const print = (line) => process.stdout.write(`${line}\n`);

if (only !== undefined) {
  for (const row of await suites[only]()) print(row);
} else {
  const os = await import('node:os');
  print(
    `Measured ${new Date().toISOString()} on Node ${process.version}, ${os.cpus().length} cores.\n`,
  );
  print('| benchmark | result |\n|---|---|');
  // Each suite runs in its own process so peak RSS and warm-up do not leak between them; rows
  // are printed as suites finish.
  for (const name of Object.keys(suites)) {
    for (const row of await inChild(name)) print(row);
  }
  const load = os
    .loadavg()
    .map((value) => value.toFixed(1))
    .join(' / ');
  print(`\nLoad average at the end (1 / 5 / 15 min): ${load}.`);
}
