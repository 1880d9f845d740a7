// Benchmarks for @rlm/sandbox-python, side by side with @rlm/sandbox (issue #21), in one run.
// Run: pnpm --filter @rlm/sandbox-python bench (after building both packages). Prints a markdown
// table; the numbers go into README.md with the date, the load and the command.
import { setMaxListeners } from 'node:events';
import { loadavg } from 'node:os';
import { createSandbox } from '@rlm/sandbox';
import { closePythonPool, createPythonSandbox, prewarmPythonSandboxes } from '../dist/index.js';

const rows = [];
const out = (text) => process.stdout.write(`${text}\n`);
/** One row: what was measured, then the JS sandbox's figure, the Python sandbox's and a note. */
const record = (what, ...cells) => {
  const [js, python, note = ''] = cells;
  rows.push({ what, js, python, note });
  out(`${what}: JS ${js} | Python ${python}${note ? ` (${note})` : ''}`);
};
const ms = (value) => (value === undefined ? '—' : `${value.toFixed(value < 10 ? 2 : 0)} ms`);
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
  if (result.error) throw new Error(`${code.slice(0, 80)}: ${result.error.message}`);
  return result;
}
const sleep = (delay) => new Promise((resolve) => setTimeout(resolve, delay));
const sleepy = (args, { signal }) =>
  new Promise((resolve, reject) => {
    const abort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', abort);
      resolve(`re:${args[0]}`);
    }, 100);
    signal.addEventListener('abort', abort, { once: true });
  });

/** ~`bytes` of log-like text with a rare needle and frequent codes like 1234-XYZ. */
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

out(
  `load average before: ${loadavg()
    .map((n) => n.toFixed(1))
    .join(', ')}`,
);

// ── create + dispose ─────────────────────
{
  const first = await time(async () => {
    const sandbox = await createPythonSandbox({});
    await sandbox.dispose();
  });
  record(
    'first Python sandbox of a process',
    '—',
    ms(first),
    'loads Pyodide from scratch and takes the memory snapshot',
  );
  closePythonPool();
  const cold = await timeMedian(3, async () => {
    closePythonPool();
    const sandbox = await createPythonSandbox({});
    await sandbox.dispose();
  });
  record('create + dispose, nothing ready', '—', ms(cold), 'median of 3; loads from the snapshot');
  const jsWarm = await timeMedian(5, async () => {
    const sandbox = await createSandbox({});
    await sandbox.dispose();
  });
  const pyWarm = [];
  for (let i = 0; i < 5; i++) {
    await prewarmPythonSandboxes({ count: 1 });
    pyWarm.push(
      await time(async () => {
        const sandbox = await createPythonSandbox({});
        await sandbox.dispose();
      }),
    );
  }
  const handOff = [];
  for (let i = 0; i < 5; i++) {
    await prewarmPythonSandboxes({ count: 1 });
    const start = performance.now();
    const sandbox = await createPythonSandbox({});
    handOff.push(performance.now() - start);
    await sandbox.dispose();
  }
  record(
    'create + dispose, ready',
    ms(jsWarm),
    ms(median(pyWarm)),
    'median of 5; JS: pooled worker, Python: a prewarmed interpreter',
  );
  record(
    'create alone, ready (Python: the hand-off)',
    '—',
    ms(median(handOff)),
    'median of 5; target ≤ 50 ms',
  );
}

// ── per block ────────────────────────────
{
  const js = await createSandbox({
    functions: { echo: { description: 'echo', call: async (args) => args[0] } },
  });
  await prewarmPythonSandboxes({ count: 1 });
  const py = await createPythonSandbox({
    functions: { echo: { description: 'echo', call: async (args) => args[0] } },
  });
  await must(js, '1');
  await must(py, '1');
  const jsBlock = await timeMedian(200, () => must(js, '1 + 1'));
  const pyBlock = await timeMedian(200, () => must(py, '1 + 1'));
  record('trivial block round trip', ms(jsBlock), ms(pyBlock), 'median of 200');
  const calls = 1_000;
  const jsCalls = (await must(js, `for (let i = 0; i < ${calls}; i++) await echo(i)`))
    .executionTime;
  const pyCalls = (await must(py, `for i in range(${calls}):\n    echo(i)`)).executionTime;
  record(
    'host call, one after another',
    `${((jsCalls / calls) * 1000).toFixed(0)} µs/call`,
    `${((pyCalls / calls) * 1000).toFixed(0)} µs/call`,
    `${calls} calls in one block`,
  );
  await js.dispose();
  await py.dispose();
}

// ── 20 concurrent 100 ms calls ───────────
// Rounds interleave the host alone (20 timers, no sandbox), the JS sandbox and the Python sandbox,
// plus an empty block and a block with one instant host call in each, so every figure meets the
// same load: the ratios to the host alone and the bridge's own round trip separate the machine's
// timer and scheduling delay from what the sandboxes add.
{
  const echo = { description: 'echo', call: async (args) => args[0] };
  const js = await createSandbox({
    functions: { llm_query: { description: 'sleep', call: sleepy }, echo },
  });
  await prewarmPythonSandboxes({ count: 1 });
  const py = await createPythonSandbox({
    functions: {
      llm_query_batched: {
        description: 'batch of sleeps',
        call: (args, options) => Promise.all(args[0].map((prompt) => sleepy([prompt], options))),
      },
      echo,
    },
  });
  await must(js, '1');
  await must(py, '1');
  const runs = { host: [], js: [], py: [], jsEmpty: [], pyEmpty: [], jsEcho: [], pyEcho: [] };
  const rounds = 11;
  for (let i = 0; i < rounds; i++) {
    const { signal } = new AbortController();
    setMaxListeners(32, signal); // 20 calls share it, as the batch's calls share the run's
    runs.host.push(
      await time(() => Promise.all(Array.from({ length: 20 }, (_, k) => sleepy([k], { signal })))),
    );
    runs.js.push(
      (await must(js, 'await Promise.all(Array.from({ length: 20 }, (_, i) => llm_query(i))); 1'))
        .executionTime,
    );
    runs.py.push((await must(py, 'len(llm_query_batched(list(range(20))))')).executionTime);
    runs.jsEmpty.push((await must(js, '1')).executionTime);
    runs.pyEmpty.push((await must(py, '1')).executionTime);
    runs.jsEcho.push((await must(js, 'await echo(1)')).executionTime);
    runs.pyEcho.push((await must(py, 'echo(1)')).executionTime);
  }
  const m = Object.fromEntries(Object.entries(runs).map(([key, values]) => [key, median(values)]));
  const ratio = (value, to) => `${(value / to).toFixed(2)}×`;
  record(
    '20 × 100 ms host calls at once',
    `${ms(m.js)} (${ratio(m.js, 100)})`,
    `${ms(m.py)} (${ratio(m.py, 100)})`,
    `median of ${rounds} interleaved rounds; JS: Promise.all of llm_query, Python: one llm_query_batched; target < 1.2× the 100 ms ideal`,
  );
  record(
    'the same, over the host alone in the same rounds',
    ratio(m.js, m.host),
    ratio(m.py, m.host),
    `the host alone: 20 timers of 100 ms with Promise.all, no sandbox: ${ms(m.host)} (${ratio(m.host, 100)})`,
  );
  record(
    'empty block / block with one instant host call, same rounds',
    `${ms(m.jsEmpty)} / ${ms(m.jsEcho)}`,
    `${ms(m.pyEmpty)} / ${ms(m.pyEcho)}`,
    `median of ${rounds}; the bridge's round trip under this load`,
  );
  await js.dispose();
  await py.dispose();
}

// ── 50 MB context ────────────────────────
{
  const text = haystack(50 * 1024 * 1024);
  await sleep(200);
  let js;
  const jsCreate = await time(async () => {
    js = await createSandbox({ context: text });
  });
  const jsSlice = (await must(js, 'context.slice(1000, 1100).length')).executionTime;
  await prewarmPythonSandboxes({ count: 1 });
  let py;
  const pyCreate = await time(async () => {
    py = await createPythonSandbox({ context: text });
  });
  const pySlice = (await must(py, 'len(context[1000:1100])')).executionTime;
  record(
    'create with a 50 MB context',
    ms(jsCreate),
    ms(pyCreate),
    `then a slicing block: JS ${ms(jsSlice)}, Python ${ms(pySlice)}`,
  );

  const pyRe = (await must(py, 'import re\nlen(re.findall(r"\\d{4}-XYZ", context))')).executionTime;
  const pyHelper = (await must(py, 'count(r"\\d{4}-XYZ")')).executionTime;
  const jsEngine = (await must(js, '(context.match(/\\d{4}-XYZ/g) || []).length')).executionTime;
  const jsHelper = (await must(js, 'await count(/\\d{4}-XYZ/)')).executionTime;
  record(
    'regex count over 50 MB: in the interpreter',
    ms(jsEngine),
    ms(pyRe),
    `JS: QuickJS match; Python: re.findall`,
  );
  record(
    'regex count over 50 MB: host helper count()',
    ms(jsHelper),
    ms(pyHelper),
    `Python re / helper = ${(pyRe / pyHelper).toFixed(1)}× (first call includes starting the scan worker and copying the text)`,
  );
  const pyHelperAgain = (await must(py, 'count(r"\\d{4}-XYZ")')).executionTime;
  const pyReAgain = (await must(py, 'len(re.findall(r"\\d{4}-XYZ", context))')).executionTime;
  const jsHelperAgain = (await must(js, 'await count(/\\d{4}-XYZ/)')).executionTime;
  record(
    'the same count again (scan worker warm)',
    `helper ${ms(jsHelperAgain)}`,
    `re ${ms(pyReAgain)}, helper ${ms(pyHelperAgain)}`,
    `Python re / helper = ${(pyReAgain / pyHelperAgain).toFixed(1)}×`,
  );
  await js.dispose();
  await py.dispose();
}

out(
  `load average after: ${loadavg()
    .map((n) => n.toFixed(1))
    .join(', ')}`,
);
out('');
out('| Measure | JS sandbox | Python sandbox | Notes |');
out('| --- | --- | --- | --- |');
for (const row of rows) out(`| ${row.what} | ${row.js} | ${row.python} | ${row.note} |`);
closePythonPool();
process.exit(0);
