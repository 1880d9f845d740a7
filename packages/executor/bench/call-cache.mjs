// The sub-call cache's benchmark (issue 36): five questions over one 1 MB corpus, answered by a
// scripted chunk-and-aggregate policy, with the cache off and on (SQLite). The chunk prompts are
// the same for every question; only the aggregating call names the question. Printed: sub-call
// requests and tokens per question, questions 2–5 as a share of question 1 (target ≤ 40 % with
// the cache on), and the cache's own cost per call on SQLite (target < 1 ms). Ratios only: no
// assertion on time.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { haystack } from '../../../scripts/bench/targets-table.mjs';
import { repl, turnOf } from './reference-turn.mjs';

const repoRoot = new URL('../../../', import.meta.url).pathname;
const executor = await import(
  pathToFileURL(resolve(repoRoot, 'packages/executor/dist/index.js')).href
);
const { createStore } = await import('@rlm/memory');

const CORPUS = haystack(1_000_000);
const CHUNKS = 40;
const QUESTIONS = [
  'Which line holds the needle?',
  'How many users appear?',
  'What status do the lines report?',
  'Is anything unusual in the log?',
  'Summarise the log in one sentence.',
];
const PRICE = { inputPerMTok: 1, outputPerMTok: 4 };
const tokensOf = (text) => Math.ceil(text.length / 4);

/** The root: chunk the corpus, summarise every chunk, then one call that names the question. */
const rootFor = (question) => ({
  id: 'bench/root',
  async complete(request) {
    const code =
      turnOf(request) === 0
        ? repl(
            `const size = Math.ceil(context.length / ${CHUNKS});\n` +
              `const notes = await llm_query_batched(Array.from({ length: ${CHUNKS} }, (_, i) => "Note what matters in this part of a log:\\n" + context.slice(i * size, (i + 1) * size)));\n` +
              `const answer = await llm_query(${JSON.stringify(`Answer from these notes. Question: ${question}\n`)} + notes.join("\\n"));`,
          )
        : 'FINAL_VAR(answer)';
    return {
      text: code,
      usage: { inputTokens: 10, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0 },
      stopReason: 'end_turn',
      model: 'bench/root',
    };
  },
});

/** The sub-model: counts what reaches it, bills at PRICE, answers at once. */
function countingSubModel() {
  const sent = { requests: 0, tokens: 0 };
  return {
    sent,
    model: {
      id: 'bench/sub',
      pricing: PRICE,
      async complete(request) {
        const prompt = request.messages.map((message) => message.content).join('\n');
        const text = `note on ${prompt.length} characters`;
        const usage = {
          inputTokens: tokensOf(prompt),
          outputTokens: tokensOf(text),
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
        };
        sent.requests += 1;
        sent.tokens += usage.inputTokens + usage.outputTokens;
        const costUsd =
          (usage.inputTokens * PRICE.inputPerMTok + usage.outputTokens * PRICE.outputPerMTok) / 1e6;
        return { text, usage, stopReason: 'end_turn', model: 'bench/sub', costUsd };
      },
    },
  };
}

async function fiveQuestions(cacheOn, dir) {
  const store = cacheOn
    ? await createStore({ kind: 'sqlite', path: join(dir, 'cache.db') })
    : undefined;
  const sub = countingSubModel();
  let question = '';
  const runner = executor.createRunner({
    resolveModel: (id) => (id === 'root' ? rootFor(question) : sub.model),
    isolation: 'inline',
    ...(store === undefined ? {} : { callCaches: { sqlite: store.callCache } }),
  });
  const perQuestion = [];
  try {
    for (const asked of QUESTIONS) {
      question = asked;
      const before = { ...sub.sent };
      await runner.run(
        { model: 'root', subModel: 'sub', ...(cacheOn ? { cache: { store: 'sqlite' } } : {}) },
        { context: CORPUS, query: question },
      );
      perQuestion.push({
        requests: sub.sent.requests - before.requests,
        tokens: sub.sent.tokens - before.tokens,
      });
    }
  } finally {
    await store?.close();
  }
  return perQuestion;
}

/** Microseconds the cache adds to one call on SQLite: a miss (read + store) and a hit (read). */
async function overheadPerCall(dir) {
  const CALLS = 2_000;
  const store = await createStore({ kind: 'sqlite', path: join(dir, 'overhead.db') });
  const instant = {
    id: 'bench/instant',
    async complete() {
      return {
        text: 'ok',
        usage: { inputTokens: 50, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 },
        stopReason: 'end_turn',
        model: 'bench/instant',
      };
    },
  };
  const cached = executor.withCallCache(instant, {
    store: store.callCache,
    settings: { store: 'sqlite', scope: 'shared', includeSampled: false },
    treeId: 'bench',
    flights: executor.createCallFlights(),
  });
  const request = (i) => ({
    messages: [
      { role: 'user', content: `Note what matters in part ${i} of a log. ${'x'.repeat(2_000)}` },
    ],
    caller: { purpose: 'sub', runId: 'bench' },
  });
  const time = async (client) => {
    const start = performance.now();
    for (let i = 0; i < CALLS; i++) await client.complete(request(i));
    return ((performance.now() - start) * 1000) / CALLS;
  };
  try {
    const bare = await time(instant);
    const miss = await time(cached);
    const hit = await time(cached);
    return { miss: miss - bare, hit: hit - bare };
  } finally {
    await store.close();
  }
}

const dir = mkdtempSync(join(tmpdir(), 'rlm-cache-bench-'));
try {
  const off = await fiveQuestions(false, dir);
  const on = await fiveQuestions(true, dir);
  const share = (runs) => Math.max(...runs.slice(1).map((run) => run.tokens / runs[0].tokens));
  process.stdout.write('sub-call cache: 5 questions over 1 MB, chunk-and-aggregate\n');
  for (const [index, question] of QUESTIONS.entries()) {
    process.stdout.write(
      `  q${index + 1} ${question.padEnd(36)} off: ${off[index].requests} requests, ${off[index].tokens} tokens   on: ${on[index].requests} requests, ${on[index].tokens} tokens\n`,
    );
  }
  const total = (runs, key) => runs.reduce((sum, run) => sum + run[key], 0);
  process.stdout.write(
    `  all 5, on / off: requests ${(total(on, 'requests') / total(off, 'requests')).toFixed(2)}×, tokens ${(total(on, 'tokens') / total(off, 'tokens')).toFixed(2)}×\n`,
  );
  const worst = share(on);
  process.stdout.write(
    `  questions 2–5, largest share of question 1's sub-call tokens: cache on ${(worst * 100).toFixed(1)} % (goal ≤ 40 %) ${worst <= 0.4 ? 'yes' : 'no'}; cache off ${(share(off) * 100).toFixed(1)} %\n`,
  );
  const overhead = await overheadPerCall(dir);
  process.stdout.write(
    `  cache overhead per call on SQLite: miss (read + store) ${overhead.miss.toFixed(0)} µs, hit ${overhead.hit.toFixed(0)} µs (goal < 1000 µs) ${Math.max(overhead.miss, overhead.hit) < 1000 ? 'yes' : 'no'}\n`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
