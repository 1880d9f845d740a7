// Benchmarks for @rlm/sandbox (issues #3 and #12). Run: pnpm --filter @rlm/sandbox bench
// Needs a build (dist/). Prints a markdown table; numbers go into README.md with the date.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { globalPattern, grep, lineStarts } from '../dist/context-ops/scan-operations.js';
import { createSandbox } from '../dist/index.js';
import { workerPool } from '../dist/worker-pool.js';

const rows = [];
const out = (text) => process.stdout.write(`${text}\n`);
const record = (what, value, note = '') => {
  rows.push({ what, value, note });
  out(`${what}: ${value}${note ? ` (${note})` : ''}`);
};
const ms = (value) => `${value.toFixed(value < 10 ? 2 : 0)} ms`;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
async function time(fn) {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}
async function timeMedian(runs, fn) {
  const times = [];
  for (let i = 0; i < runs; i++) times.push(await time(fn));
  return median(times);
}
async function must(sandbox, code) {
  const result = await sandbox.execute(code);
  if (result.error) throw new Error(`${code}: ${result.error.message}`);
  return result;
}

/** ~`bytes` of log-like text; NEEDLE-4242 once every 10,000 lines, codes like 2024-ABC often. */
function haystack(bytes) {
  const parts = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line =
      i % 10_000 === 5_000
        ? `line ${i} the NEEDLE-4242 is here\n`
        : `line ${i} user=${i % 97} status=${i % 7 === 0 ? `${1000 + (i % 9000)}-XYZ` : 'ok'} lorem ipsum dolor sit amet\n`;
    parts.push(line);
    size += line.length;
  }
  return parts.join('').slice(0, bytes);
}

// ── #3: engine costs ─────────────────────
for (const isolation of ['inline', 'worker']) {
  const cold = await timeMedian(5, async () => {
    const sandbox = await createSandbox({ isolation });
    await sandbox.dispose();
  });
  record(
    `create + dispose (${isolation})`,
    ms(cold),
    isolation === 'worker'
      ? 'median of 5 back to back: the worker is reused'
      : 'median of 5; WASM compiled once per thread',
  );
  const sandbox = await createSandbox({
    isolation,
    functions: { echo: { description: 'echo', call: async (args) => args[0] } },
  });
  await must(sandbox, '1');
  const trivial = await timeMedian(200, () => must(sandbox, '1 + 1'));
  record(`trivial block round trip (${isolation})`, ms(trivial), 'median of 200');
  const calls = 2_000;
  const hostLoop = await time(() =>
    must(sandbox, `for (let i = 0; i < ${calls}; i++) await echo(i)`),
  );
  record(
    `host call, sequential await (${isolation})`,
    `${((hostLoop / calls) * 1000).toFixed(0)} µs/call`,
  );
  await sandbox.dispose();
}

// What a worker sandbox costs when no idle worker waits (the first in a process, or more at once
// than the pool holds): the pool is emptied before each run, untimed.
{
  const times = [];
  for (let i = 0; i < 5; i++) {
    await workerPool.close();
    times.push(
      await time(async () => {
        const sandbox = await createSandbox({ isolation: 'worker' });
        await sandbox.dispose();
      }),
    );
  }
  record('create + dispose (worker, fresh worker)', ms(median(times)), 'median of 5');
}

const sleepy = {
  description: 'sleeps 100 ms',
  call: (args, { signal }) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => resolve(args[0]), 100);
      signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          reject(signal.reason);
        },
        { once: true },
      );
    }),
};
for (const isolation of ['inline', 'worker']) {
  const sandbox = await createSandbox({ isolation, functions: { llm_query: sleepy } });
  const result = await must(
    sandbox,
    'await Promise.all(Array.from({ length: 20 }, (_, i) => llm_query(i))); 1',
  );
  record(
    `20 × 100 ms concurrent host calls (${isolation})`,
    ms(result.executionTime),
    `${(result.executionTime / 100).toFixed(2)}× the 100 ms ideal`,
  );
  await sandbox.dispose();
}

{
  // Injection alone: an inline sandbox has no worker to start.
  const text = haystack(50_000_000);
  let sandbox;
  const inject = await time(async () => {
    sandbox = await createSandbox({ isolation: 'inline', context: text });
  });
  const slice = await must(sandbox, 'context.slice(1000, 1100).length');
  record(
    'create with a 50 MB context (inline)',
    ms(inject),
    `then a slicing block: ${ms(slice.executionTime)}`,
  );
  await sandbox.dispose();
}

for (const megabytes of [1, 10, 50]) {
  const text = haystack(megabytes * 1_000_000);
  let sandbox;
  const inject = await time(async () => {
    sandbox = await createSandbox({ isolation: 'worker', context: text });
  });
  const slice = await must(sandbox, 'context.slice(1000, 1100).length');
  record(
    `create with a ${megabytes} MB context (worker)`,
    ms(inject),
    `then a slicing block: ${ms(slice.executionTime)}`,
  );
  await sandbox.dispose();
}

// ── regex scans: QuickJS vs plain Node vs host helpers (#3, #12) ──
const ten = haystack(10_000_000);
{
  const sandbox = await createSandbox({ isolation: 'worker', context: ten });
  const guest = await must(
    sandbox,
    'const t0 = Date.now(); (context.match(/[0-9]{4}-[A-Z]{3}/g) || []).length',
  );
  const node = await timeMedian(3, () => (ten.match(/[0-9]{4}-[A-Z]{3}/g) ?? []).length);
  record(
    'regex scan over 10 MB in QuickJS',
    ms(guest.executionTime),
    `plain Node ${ms(node)}; QuickJS/Node = ${(guest.executionTime / node).toFixed(0)}×`,
  );
  await sandbox.dispose();
}

const fifty = haystack(50_000_000);
const sandbox = await createSandbox({ isolation: 'worker', context: fifty });
await must(sandbox, 'await count("warm-up")');
const scans = [
  ['simple needle', 'NEEDLE-4242'],
  ['character class', '[0-9]{4}-[A-Z]{3}'],
];
for (const [label, source] of scans) {
  const re = new RegExp(source, 'g');
  const nodeCount = await timeMedian(3, () => (fifty.match(re) ?? []).length);
  const nodeGrep = await timeMedian(3, () =>
    grep(fifty, globalPattern(source, ''), {
      context: 0,
      maxItems: 1000,
      maxChars: 100_000,
      starts: lineStarts(fifty),
    }),
  );
  const nodeSplit = await timeMedian(
    1,
    () => fifty.split('\n').filter((line) => new RegExp(source).test(line)).length,
  );
  const hostCount = median(
    await Promise.all(
      [0, 1, 2].map(
        async () => (await must(sandbox, `await count(${JSON.stringify(source)})`)).executionTime,
      ),
    ),
  );
  const hostGrep = median(
    await Promise.all(
      [0, 1, 2].map(
        async () =>
          (await must(sandbox, `(await grep(${JSON.stringify(source)})).total`)).executionTime,
      ),
    ),
  );
  const guestCount = (await must(sandbox, `(context.match(/${source}/g) || []).length`))
    .executionTime;
  const guestGrep = (
    await must(sandbox, `context.split("\\n").filter((l) => /${source}/.test(l)).length`)
  ).executionTime;
  record(
    `count, ${label}, 50 MB: helper`,
    ms(hostCount),
    `plain Node ${ms(nodeCount)} (${(hostCount / nodeCount).toFixed(1)}×); QuickJS ${ms(guestCount)} (${(guestCount / hostCount).toFixed(0)}× slower than the helper)`,
  );
  record(
    `grep, ${label}, 50 MB: helper`,
    ms(hostGrep),
    `plain Node same scan ${ms(nodeGrep)} (${(hostGrep / nodeGrep).toFixed(1)}×), Node split+filter ${ms(nodeSplit)}; QuickJS split+filter ${ms(guestGrep)} (${(guestGrep / hostGrep).toFixed(0)}× slower than the helper)`,
  );
}
await sandbox.dispose();

{
  const evil = await createSandbox({
    isolation: 'worker',
    context: `${'a'.repeat(40)}!`,
    limits: { scanTimeoutMs: 1_000 },
  });
  const other = await createSandbox({ isolation: 'worker', context: ten });
  const [stopped, meanwhile] = await Promise.all([
    evil.execute('let why; try { await count(/^(a+)+$/) } catch (e) { why = e.message } why'),
    (async () => {
      const times = [];
      for (let i = 0; i < 5; i++)
        times.push((await must(other, 'await count("NEEDLE")')).executionTime);
      return median(times);
    })(),
  ]);
  record(
    'catastrophic pattern, scanTimeoutMs 1000',
    ms(stopped.executionTime),
    `stopped: ${stopped.stdout.includes('1000 ms')}; another sandbox's count over 10 MB meanwhile: ${ms(meanwhile)}`,
  );
  await evil.dispose();
  await other.dispose();
}

// ── host event loop while a worker block spins ──
{
  const spinner = await createSandbox({ isolation: 'worker', limits: { cpuSliceMs: 2_000 } });
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  const result = await spinner.execute('while (true) {}');
  histogram.disable();
  record(
    'host event-loop lag while a worker block spins 2 s',
    `p99 ${ms(histogram.percentile(99) / 1e6)}, max ${ms(histogram.max / 1e6)}`,
    `block ended with ${result.error?.code}`,
  );
  await spinner.dispose();
}

// ── abort latency of CPU-bound code in a worker ──
{
  const spinner = await createSandbox({ isolation: 'worker' });
  const latencies = [];
  for (let i = 0; i < 5; i++) {
    const controller = new AbortController();
    const running = spinner.execute('while (true) {}', { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const abortedAt = performance.now();
    controller.abort();
    await running;
    latencies.push(performance.now() - abortedAt);
  }
  record(
    'abort of a spinning worker block, until execute() resolves',
    ms(median(latencies)),
    `median of 5; max ${ms(Math.max(...latencies))}`,
  );
  await spinner.dispose();
}

out('\n| Measure | Result | Notes |\n|---|---|---|');
for (const row of rows) out(`| ${row.what} | ${row.value} | ${row.note} |`);
