// Benchmarks of the RLM loop (see README "Benchmarks"). Run: pnpm --filter @rlm/executor bench
// Each number is a median over repetitions; ratios compare against the ideal named beside them.
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRLM } from '../dist/index.js';

const only = process.argv[2];

/** A zero-latency (or fixed-latency) model answering from a function of the request. */
function model(id, answer, latencyMs = 0) {
  return {
    id,
    async complete(request) {
      if (latencyMs > 0) {
        await new Promise((resolve, reject) => {
          const timer = setTimeout(resolve, latencyMs);
          request.signal?.addEventListener('abort', () => {
            clearTimeout(timer);
            reject(request.signal.reason);
          });
        });
      }
      const text = answer(request);
      const usage = { inputTokens: 100, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0 };
      return { text, usage, stopReason: 'end_turn', model: id };
    },
  };
}

const turnOf = (request) =>
  request.messages.filter((message) => message.role === 'assistant').length;
const repl = (code) => `\`\`\`repl\n${code}\n\`\`\``;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const fmt = (value, digits = 1) => value.toFixed(digits);

/**
 * Per turn over turns 1 to the answer of one run: the whole turn, and the part between each
 * `block-start` and its `block-end` (the sandbox's round trip as the loop sees it).
 */
async function turnMicros({ iterations, isolation, code }) {
  let firstTurnAt = 0;
  let answeredAt = 0;
  let blockAt = 0;
  let inBlocks = 0;
  const root = model('bench/root', (request) => {
    const turn = turnOf(request);
    if (turn === iterations - 1) return 'FINAL(done)';
    return code ? repl('x = 1 + 1; print(x)') : `Thinking about step ${turn}.`;
  });
  const rlm = createRLM({
    model: root,
    maxIterations: iterations,
    isolation,
    firstTurnGuard: false,
    onEvent: (event) => {
      // Turn 0 also waits for the sandbox to start: measure from turn 1 on.
      if (event.type === 'iteration-start' && event.iteration === 1) {
        firstTurnAt = performance.now();
      }
      if (event.type === 'block-start' && event.iteration >= 1) blockAt = performance.now();
      if (event.type === 'block-end' && event.iteration >= 1)
        inBlocks += performance.now() - blockAt;
      if (event.type === 'final-answer') answeredAt = performance.now();
    },
  });
  await rlm.completion('context');
  const perTurn = (ms) => (ms / (iterations - 1)) * 1000;
  return { total: perTurn(answeredAt - firstTurnAt), block: perTurn(inBlocks) };
}

/**
 * The loop per turn on the reference workload (a zero-latency model answering with the trivial
 * block `x = 1 + 1; print(x)` every turn), after 40 warm-up runs of 50 turns so V8 has optimized
 * the loop (the first runs in a process cost several times more; the targets show that cold run).
 */
async function loopOverhead() {
  const rows = [];
  const workloads = [
    { what: 'the reference turn, `inline` sandbox', isolation: 'inline', code: true },
    { what: 'the reference turn, `worker` sandbox', isolation: 'worker', code: true },
    { what: 'a turn without code (for the record)', isolation: 'inline', code: false },
  ];
  for (const workload of workloads) {
    const run = () => turnMicros({ iterations: 50, ...workload });
    for (let warmUp = 0; warmUp < 40; warmUp++) await run();
    const samples = [];
    for (let rep = 0; rep < 15; rep++) samples.push(await run());
    const total = median(samples.map((s) => s.total));
    const parts = workload.code
      ? `; block-start to block-end ${fmt(median(samples.map((s) => s.block)), 0)} µs, the loop's own rest ${fmt(median(samples.map((s) => s.total - s.block)), 0)} µs`
      : '';
    rows.push(
      `| per iteration, ${workload.what}: zero-latency model, 50-iteration runs after 40 warm-up runs | median ${fmt(total, 0)} µs${parts} |`,
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
