// Benchmarks for @rlm/memory (uses the built package: run `pnpm --filter @rlm/memory build` first).
//   pnpm --filter @rlm/memory bench [-- --quick] [-- --postgres=postgres://user@127.0.0.1:5432/postgres]
// Prints a markdown table: throughput of conversation appends and RunStore event appends, and
// recent() latency, for each backend, plus the ratio to the in-process backend (the number to
// compare across machines; absolute numbers depend on the disk and on what else is running).
// With --postgres (a URL whose user may create databases) Postgres is measured too, in a fresh
// database that is dropped afterwards.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createStore } from '@rlm/memory';
import pg from 'pg';

const quick = process.argv.includes('--quick');
const APPENDS = quick ? 1_000 : 5_000;
const EVENTS = quick ? 1_000 : 5_000;
const RECENT_CALLS = quick ? 1_000 : 5_000;
const SENDERS = 200;
const postgresUrl = process.argv.find((arg) => arg.startsWith('--postgres='))?.slice(11);
const postgresDatabase = `rlm_bench_${process.pid}`;

const BACKENDS = [
  { name: 'memory', options: () => ({ kind: 'memory' }) },
  {
    name: 'sqlite (synchronous=normal)',
    options: (dir, tag) => ({ kind: 'sqlite', path: join(dir, `${tag}n.db`) }),
  },
  {
    name: 'sqlite (synchronous=full)',
    options: (dir, tag) => ({
      kind: 'sqlite',
      path: join(dir, `${tag}f.db`),
      synchronous: 'full',
    }),
  },
  ...(postgresUrl === undefined
    ? []
    : [
        {
          name: 'postgres (127.0.0.1, default durability)',
          options: () => {
            const url = new URL(postgresUrl);
            url.pathname = `/${postgresDatabase}`;
            return { kind: 'postgres', url: url.toString() };
          },
        },
      ]),
];

async function adminQuery(sql) {
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function exchange(index) {
  return {
    messageId: `m${index}`,
    senderBody: `message body ${index} `.repeat(20),
    agentReply: `reply ${index} `.repeat(20),
    turnId: `t${index}`,
  };
}

function event(index) {
  return {
    v: 1,
    type: 'block-end',
    runId: 'bench',
    parentRunId: null,
    rootRunId: 'bench',
    depth: 0,
    at: Date.now(),
    iteration: index,
    index: 0,
    stdout: 'output line\n'.repeat(10),
    stderr: '',
    executionTime: 3,
    finalAnswer: null,
    error: null,
  };
}

/**
 * Before each timed window: a full collection when the bench runs with `--expose-gc`, so garbage
 * left by loading the packages is not collected inside whichever window comes first.
 */
const collect = () => globalThis.gc?.();

async function perSecond(count, work) {
  collect();
  const start = performance.now();
  for (let index = 0; index < count; index++) await work(index);
  return (count / (performance.now() - start)) * 1000;
}

async function latencies(count, work) {
  collect();
  const samples = [];
  for (let index = 0; index < count; index++) {
    const start = performance.now();
    await work(index);
    samples.push((performance.now() - start) * 1000);
  }
  samples.sort((a, b) => a - b);
  const at = (q) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))];
  return { p50: at(0.5), p95: at(0.95) };
}

/** The three figures of one backend; `tag` names its files, `scale` divides the counts. */
async function measure(backend, dir, { tag = '', scale = 1 } = {}) {
  const store = await createStore(backend.options(dir, tag));
  const appendsPerSecond = await perSecond(APPENDS / scale, (index) =>
    store.conversations.append(`sender-${index % SENDERS}`, exchange(index)),
  );
  const recent = await latencies(RECENT_CALLS / scale, (index) =>
    store.conversations.recent(`sender-${index % SENDERS}`, 5),
  );
  await store.runs.createRun({ id: 'bench' });
  const eventsPerSecond = await perSecond(EVENTS / scale, (index) =>
    store.runs.appendEvent('bench', event(index)),
  );
  await store.close();
  return { appendsPerSecond, recent, eventsPerSecond };
}

const dir = mkdtempSync(join(tmpdir(), 'rlm-memory-bench-'));
if (postgresUrl !== undefined) await adminQuery(`CREATE DATABASE ${postgresDatabase}`);
try {
  // The work once untimed first (a tenth of it on SQLite, whose figures are the disk's), so the
  // figures are of warm code, not of the first calls' compilation: a thousand in-memory appends
  // take about as long as compiling them (a process's start-up is the CLI's start-up bench).
  for (const [index, backend] of BACKENDS.slice(0, 3).entries()) {
    await measure(backend, dir, { tag: 'warm-', scale: index === 0 ? 1 : 10 });
  }
  const results = [];
  for (const backend of BACKENDS)
    results.push({ name: backend.name, ...(await measure(backend, dir)) });
  const memory = results[0];
  const lines = [
    `Node ${process.version}, ${APPENDS} appends over ${SENDERS} senders, ${RECENT_CALLS} recent(sender, 5) calls, ${EVENTS} event appends`,
    '',
    '| backend | conversation appends/s | recent() p50 µs | recent() p95 µs | event appends/s | appends vs memory | events vs memory |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...results.map(
      (result) =>
        `| ${result.name} | ${Math.round(result.appendsPerSecond)} | ${result.recent.p50.toFixed(1)} | ${result.recent.p95.toFixed(1)} | ${Math.round(result.eventsPerSecond)} | ${(result.appendsPerSecond / memory.appendsPerSecond).toFixed(3)} | ${(result.eventsPerSecond / memory.eventsPerSecond).toFixed(3)} |`,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
  if (postgresUrl !== undefined) await adminQuery(`DROP DATABASE IF EXISTS ${postgresDatabase}`);
}
