// Replica benchmark for @rlm/server (uses the built packages: `pnpm --filter @rlm/server... build`).
//   pnpm --filter @rlm/server bench [-- --quick]
// Starts a throwaway PostgreSQL (Debian's binaries, see startPostgres in @rlm/testkit) and a fake
// OpenAI-compatible model that answers every call in 200 ms (turn 1 writes a REPL block, turn 2
// answers from its output: two calls per run). Then, for 1 and for 3 replicas of the built server
// on that database (each with globalConcurrency 4), submits the runs round-robin and reports runs
// per minute, and the latency of events from their `at` (set by the executing replica just before
// it writes the event) to their arrival at an SSE client attached to a replica that did not
// execute the run. Prints a markdown table.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startFakeOpenAI, startPostgres } from '@rlm/testkit';
import pg from 'pg';

const quick = process.argv.includes('--quick');
const RUNS = quick ? 30 : 120;
const CONCURRENCY = 4;
const BIN = join(import.meta.dirname, '..', 'dist', 'bin.js');
const run = promisify(execFile);

const postgres = await startPostgres();
const fake = await startFakeOpenAI({
  requireAuth: false,
  script: (request) =>
    request.messages.some((message) => message.content.includes('REPL output'))
      ? { text: 'FINAL(done)', delayMs: 200 }
      : { text: '```repl\nprint(context.length)\n```', delayMs: 200 },
});
const directory = mkdtempSync(join(tmpdir(), 'rlm-server-bench-'));
const rows = [];
try {
  for (const count of [1, 3]) rows.push(await measure(count));
} finally {
  await fake.close();
  await postgres.stop();
  rmSync(directory, { recursive: true, force: true });
}

console.log(
  `Node ${process.version}, ${cpus().length} cores, PostgreSQL ${postgres.version}, ${RUNS} runs per row, fake model 200 ms per call (2 calls per run), globalConcurrency ${CONCURRENCY} per replica\n`,
);
console.log(
  '| replicas | runs | wall s | runs/min | events measured | write→client p50 ms | p95 ms | emit→client p50 ms | p95 ms |',
);
console.log(
  '| -------: | ---: | -----: | -------: | --------------: | ------------------: | -----: | -----------------: | -----: |',
);
for (const row of rows) {
  console.log(
    `| ${row.replicas} | ${row.runs} | ${row.wallS.toFixed(1)} | ${row.perMinute.toFixed(0)} | ${row.samples} | ${row.p50.toFixed(0)} | ${row.p95.toFixed(0)} | ${row.emitP50.toFixed(0)} | ${row.emitP95.toFixed(0)} |`,
  );
}
if (rows.length === 2) {
  console.log(
    `\n3 replicas / 1 replica, runs per minute: ${(rows[1].perMinute / rows[0].perMinute).toFixed(2)}×`,
  );
}

async function measure(count) {
  const database = `rlm_bench_${count}_${process.pid}`;
  const admin = new pg.Client({ connectionString: postgres.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();
  const url = new URL(postgres.url);
  url.pathname = `/${database}`;
  const config = join(directory, `config-${count}.json`);
  writeFileSync(
    config,
    JSON.stringify({
      profiles: { default: { model: `openai-compatible/fake@${fake.url}`, maxIterations: 4 } },
      limits: {
        globalConcurrency: CONCURRENCY,
        concurrentRunsPerKey: 10_000,
        queueSize: 10_000,
        requestsPerMinute: 1_000_000,
      },
      cluster: { leaseMs: 10_000, heartbeatMs: 1_000, pollMs: 200 },
      logLevel: 'info',
    }),
  );
  const env = (index) => ({
    ...process.env,
    RLM_DATABASE_URL: url.toString(),
    RLM_SERVER_CONFIG: config,
    RLM_SERVER_DATA_DIR: join(directory, `data-${count}-${index}`),
    RLM_SERVER_PORT: '0',
  });
  const { stdout } = await run(process.execPath, [BIN, 'keys', 'create', '--name', 'bench'], {
    env: env(0),
  });
  const key = JSON.parse(stdout).key;
  const replicas = [];
  for (let index = 0; index < count; index++) replicas.push(await startReplica(env(index)));
  // When each event was written: its commit, as the store's trigger announces it to listeners.
  const written = new Map();
  const listener = new pg.Client({ connectionString: url.toString() });
  await listener.connect();
  listener.on('notification', (message) => {
    const { runId, seq } = JSON.parse(message.payload ?? '{}');
    if (typeof seq === 'number') written.set(`${runId}:${seq}`, Date.now());
  });
  await listener.query('LISTEN rlm_run_events');
  try {
    const started = performance.now();
    const streams = [];
    for (let index = 0; index < RUNS; index++) {
      const target = replicas[index % count];
      const response = await fetch(`${target.url}/v1/runs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: `length ${index}?`, context: 'x'.repeat(index + 1) }),
      });
      if (response.status !== 202)
        throw new Error(`submit: ${response.status} ${await response.text()}`);
      const { id } = await response.json();
      // One client per run, on the next replica round-robin (with 3 replicas, whichever one
      // claims the run, most clients are elsewhere; those on the executing one are not counted).
      const replicaIndex = (index + 1) % count;
      streams.push(
        follow(replicas[replicaIndex], { key, runId: id, written }).then((arrivals) => ({
          runId: id,
          replicaIndex,
          arrivals,
        })),
      );
    }
    const followed = await Promise.all(streams);
    const wallMs = performance.now() - started;
    const executors = executorsByRun(replicas);
    const counted = followed.filter(
      ({ runId, replicaIndex }) => count === 1 || !executors.get(runId)?.has(replicaIndex),
    );
    const fromWrite = counted.flatMap(({ arrivals }) => arrivals.fromWrite).sort((a, b) => a - b);
    const fromEmit = counted.flatMap(({ arrivals }) => arrivals.fromEmit).sort((a, b) => a - b);
    return {
      replicas: count,
      runs: RUNS,
      wallS: wallMs / 1000,
      perMinute: (RUNS / wallMs) * 60_000,
      samples: fromWrite.length,
      p50: percentile(fromWrite, 0.5),
      p95: percentile(fromWrite, 0.95),
      emitP50: percentile(fromEmit, 0.5),
      emitP95: percentile(fromEmit, 0.95),
    };
  } finally {
    await listener.end();
    for (const replica of replicas) {
      replica.child.kill('SIGTERM');
      await replica.exit;
    }
  }
}

/**
 * Follows a run's events to its end; for each event, its arrival here minus the time its write
 * was announced (`fromWrite`) and minus its `at` (`fromEmit`, the write's own delay included).
 */
async function follow(replica, { key, runId, written }) {
  const response = await fetch(`${replica.url}/v1/runs/${runId}/events`, {
    headers: { authorization: `Bearer ${key}` },
  });
  const attachedAt = Date.now();
  const decoder = new TextDecoder();
  const arrivals = { fromWrite: [], fromEmit: [] };
  let buffer = '';
  for await (const chunk of response.body) {
    buffer += decoder.decode(chunk, { stream: true });
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf('\n\n');
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const id = /^id: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (event === 'end') return arrivals;
      if (data === undefined || event === 'shutdown') continue;
      const now = Date.now();
      const at = JSON.parse(data).at;
      if (typeof at === 'number') arrivals.fromEmit.push(now - at);
      const writtenAt = written.get(`${runId}:${id}`);
      // An event written before the client attached is a replay, not a live delivery.
      if (writtenAt !== undefined && writtenAt >= attachedAt)
        arrivals.fromWrite.push(now - writtenAt);
    }
  }
  return arrivals;
}

/** Which replicas claimed each run, from their logs. */
function executorsByRun(replicas) {
  const found = new Map();
  for (const [index, replica] of replicas.entries()) {
    for (const log of replica.logs) {
      if (log.msg !== 'run claimed') continue;
      const set = found.get(log.runId) ?? new Set();
      set.add(index);
      found.set(log.runId, set);
    }
  }
  return found;
}

function percentile(sorted, q) {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function startReplica(env) {
  const child = spawn(process.execPath, [BIN], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const exit = new Promise((resolve) => child.once('exit', resolve));
  const logs = [];
  const url = await new Promise((resolve, reject) => {
    let buffer = '';
    child.stdout.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        if (line.trim() === '') continue;
        const entry = JSON.parse(line);
        logs.push(entry);
        if (entry.msg === 'listening') resolve(entry.url);
      }
    });
    child.once('exit', (code) => reject(new Error(`replica exited with ${code}`)));
  });
  return { child, exit, url, logs };
}
