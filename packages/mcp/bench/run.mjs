// Benchmarks of the MCP server (see README "Benchmarks"). Run: pnpm --filter @rlm/mcp bench
// Each figure is a median over repetitions, both sides measured in this one run.
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createRLM } from '@rlm/executor';
import { createSandbox } from '@rlm/sandbox';
import { benchModel } from './bench-model.mjs';

const REPS = 40;
const BLOCK = 'const x = [1, 2, 3].map((n) => n * 2);\nprint(x.join(","))';
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const fmt = (value, digits = 2) => value.toFixed(digits);
const print = (line) => process.stdout.write(`${line}\n`);

async function timed(fn) {
  const samples = [];
  await fn(); // warm-up: the first call starts the sandbox or worker
  for (let rep = 0; rep < REPS; rep++) {
    const start = performance.now();
    await fn();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

const client = new Client({ name: 'bench', version: '1.0.0' });
await client.connect(
  new StdioClientTransport({
    command: process.execPath,
    args: [fileURLToPath(new URL('./stdio-server.mjs', import.meta.url))],
    stderr: 'inherit',
  }),
);
const sandbox = await createSandbox({ context: 'bench context' });
try {
  await client.callTool({ name: 'context_load', arguments: { text: 'bench context' } });
  const overStdio = await timed(() =>
    client.callTool({ name: 'repl_exec', arguments: { code: BLOCK } }),
  );
  const inLibrary = await timed(() => sandbox.execute(BLOCK));

  const rlm = createRLM({ model: benchModel(), firstTurnGuard: false });
  const delegated = await timed(() =>
    client.callTool({
      name: 'rlm_query',
      arguments: { query: 'length?', context: 'bench context' },
    }),
  );
  const direct = await timed(() => rlm.completion('bench context', { query: 'length?' }));

  print('| Measure | MCP over stdio | Library | Ratio | Added |');
  print('| --- | --- | --- | --- | --- |');
  print(
    `| \`repl_exec\` of a trivial block vs \`sandbox.execute\` | ${fmt(overStdio)} ms | ${fmt(inLibrary)} ms | ${fmt(overStdio / inLibrary, 1)}× | ${fmt(overStdio - inLibrary)} ms |`,
  );
  print(
    `| delegated \`rlm_query\` (2 turns, zero-latency model) vs \`rlm.completion\` | ${fmt(delegated)} ms | ${fmt(direct)} ms | ${fmt(delegated / direct, 1)}× | ${fmt(delegated - direct)} ms |`,
  );
} finally {
  await sandbox.dispose();
  await client.close();
}
