// The reference turn of issue #23, measured one way for both of the executor's benches
// (`targets.mjs`, the targets table, and `run.mjs`, the detail table): a zero-latency model
// answering with the trivial block `x = 1 + 1; print(x)` every turn, timed from the loop's own
// events, after enough warm-up runs that V8 has finished optimizing the loop.

/** The block the reference engine's 48 µs per iteration was measured with. */
export const REFERENCE_BLOCK = 'x = 1 + 1; print(x)';

export const turnOf = (request) =>
  request.messages.filter((message) => message.role === 'assistant').length;
export const repl = (code) => `\`\`\`repl\n${code}\n\`\`\``;
export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** A zero-latency (or fixed-latency) model answering from a function of the request. */
export function model(id, answer, latencyMs = 0) {
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
      const usage = { inputTokens: 100, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0 };
      return { text: answer(request), usage, stopReason: 'end_turn', model: id };
    },
  };
}

/** Turns per run: the reference engine's figure is per iteration over runs of this length. */
export const TURNS_PER_RUN = 50;
// V8 keeps optimizing the loop for ~2,000 turns (per-turn medians at load ~3: ~1.2 ms in the
// first run of 50, ~160 µs after 500 turns, ~120 µs after 1,000, ~65–130 µs after 2,000).
export const WARM_UP_RUNS = 40;

/**
 * One run of `iterations` turns; per turn over turns 1 to the answer (turn 0 also waits for the
 * sandbox to start): the whole turn (`total`), the part between each `block-start` and its
 * `block-end` (`block`: the sandbox's round trip as the loop sees it; the rest is the loop's own:
 * model call, parsing, events, history), and the CPU time of every thread of the process (`cpu`:
 * a worker sandbox's too). `code: false` answers with prose instead of the block (a turn without
 * code, for the record).
 */
export async function turnMicros(executor, { isolation, iterations = TURNS_PER_RUN, code = true }) {
  let firstTurnAt = 0;
  let answeredAt = 0;
  let blockAt = 0;
  let inBlocks = 0;
  let cpuAtFirstTurn;
  let cpuAtAnswer;
  // CPU (µs, all threads) at the start of each turn from turn 1 on, and at the answer.
  const cpuMarks = [];
  const cpuNow = () => {
    const { user, system } = process.cpuUsage();
    return user + system;
  };
  const root = model('bench/root', (request) => {
    const turn = turnOf(request);
    if (turn === iterations - 1) return 'FINAL(done)';
    return code ? repl(REFERENCE_BLOCK) : `Thinking about step ${turn}.`;
  });
  const rlm = executor.createRLM({
    model: root,
    maxIterations: iterations,
    isolation,
    firstTurnGuard: false,
    onEvent: (event) => {
      if (event.type === 'iteration-start' && event.iteration === 1) {
        cpuAtFirstTurn = process.cpuUsage();
        firstTurnAt = performance.now();
      }
      if (event.type === 'iteration-start' && event.iteration >= 1) cpuMarks.push(cpuNow());
      if (event.type === 'block-start' && event.iteration >= 1) blockAt = performance.now();
      if (event.type === 'block-end' && event.iteration >= 1) {
        inBlocks += performance.now() - blockAt;
      }
      if (event.type === 'final-answer') {
        answeredAt = performance.now();
        cpuAtAnswer = process.cpuUsage(cpuAtFirstTurn);
        cpuMarks.push(cpuNow());
      }
    },
  });
  await rlm.completion('context');
  const perTurn = (ms) => (ms / (iterations - 1)) * 1000;
  return {
    total: perTurn(answeredAt - firstTurnAt),
    block: perTurn(inBlocks),
    cpu: perTurn((cpuAtAnswer.user + cpuAtAnswer.system) / 1000),
    cpuTurns: cpuMarks.slice(1).map((mark, index) => mark - cpuMarks[index]),
  };
}

/**
 * The reference workload in the calling process: the first run (`cold`: measured right after the
 * modules load, before the JIT has optimized anything, when it is the process's first), then
 * `WARM_UP_RUNS - 1` more warm-up runs, then `measuredRuns` runs (`warm`).
 */
export async function referenceTurns(executor, { isolation, code = true, measuredRuns }) {
  const cold = await turnMicros(executor, { isolation, code });
  for (let run = 1; run < WARM_UP_RUNS; run++) await turnMicros(executor, { isolation, code });
  const warm = [];
  for (let run = 0; run < measuredRuns; run++) {
    warm.push(await turnMicros(executor, { isolation, code }));
  }
  return { cold, warm };
}

/**
 * Medians of warm runs: per turn, its block, the loop's own rest, and CPU (all in µs); and over
 * every single turn of those runs, the mean and the 90th percentile of its CPU (a median hides
 * the turns that pay for garbage collection and the JIT).
 */
export function turnSummary(warm) {
  const turns = warm.flatMap((run) => run.cpuTurns).sort((a, b) => a - b);
  return {
    total: median(warm.map((run) => run.total)),
    block: median(warm.map((run) => run.block)),
    rest: median(warm.map((run) => run.total - run.block)),
    cpu: median(warm.map((run) => run.cpu)),
    cpuMean: turns.reduce((sum, value) => sum + value, 0) / turns.length,
    cpuP90: turns[Math.min(turns.length - 1, Math.floor(turns.length * 0.9))],
  };
}
