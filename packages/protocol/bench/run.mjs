// Benchmark of the model-output parsers on adversarial text (issue #17, item 6).
// Run: pnpm --filter @rlm/protocol bench (needs a build: dist/). Each input is 1 MiB of one
// adversarial shape; the target is 50 ms of CPU per call, and the same shape at 4 MiB shows the
// growth. Prints a markdown table for README.md; run `uptime` beside it, since wall times on a
// shared machine depend on its load.
import { dedentBlock, findCodeBlocks, parseFinalMarker } from '../dist/index.js';

const TARGET_MS = 50;
const MEBIBYTE = 2 ** 20;
const RUNS = 9;
const BACKTICK = '`';

/** `unit` repeated to about `bytes` characters, flattened so no parser pays for building it. */
function fill(unit, bytes) {
  const text = unit.repeat(Math.ceil(bytes / unit.length));
  text.charCodeAt(text.length >> 1);
  return text;
}
const fence = (body) => `\`\`\`repl\n${body}\n\`\`\``;

const blocks = (text) => findCodeBlocks(text);
const marker = (text) => parseFinalMarker(text);

/** Parser, input shape, the input at a size, and the call timed on it. */
const CASES = [
  ['findCodeBlocks', 'unclosed ```repl openings', (n) => fill('```repl\na', n), blocks],
  [
    'findCodeBlocks',
    'openings closed once at the very end',
    (n) => fence(fill('a```repl\n', n)),
    blocks,
  ],
  [
    'findCodeBlocks',
    'backticks only (tags repl, js)',
    (n) => fill(BACKTICK, n),
    (text) => findCodeBlocks(text, { languages: ['js'] }),
  ],
  ['findCodeBlocks', 'one block of indented one-char lines', (n) => fence(fill(' x\n', n)), blocks],
  ['findCodeBlocks', 'one block of parentheses', (n) => fence(fill('()', n)), blocks],
  [
    'findCodeBlocks',
    'small closed blocks, CRLF',
    (n) => fill('```repl\r\nx = 1\r\n```\r\n', n),
    blocks,
  ],
  [
    'dedentBlock',
    'blank lines around two lines',
    (n) => `${fill('\n', n / 2)}  a\n    b${fill(' \n', n / 2)}`,
    dedentBlock,
  ],
  ['parseFinalMarker', 'unclosed ``` fences', (n) => fill('```\na', n), marker],
  [
    'parseFinalMarker',
    'backticks, then a FINAL line',
    (n) => `${fill(BACKTICK, n)}\nFINAL(x)`,
    marker,
  ],
  [
    'parseFinalMarker',
    'closed fences holding markers',
    (n) => fill('```repl\nFINAL_VAR(x)\nFINAL(no)\n```\n', n),
    marker,
  ],
  ['parseFinalMarker', 'FINAL( then opening parentheses', (n) => `FINAL(${fill('(', n)}`, marker],
  ['parseFinalMarker', 'FINAL( then closing parentheses', (n) => `FINAL(${fill(')', n)}`, marker],
  [
    'parseFinalMarker',
    'FINAL( then unbalanced "a (b)" lines',
    (n) => `FINAL(${fill('a (b)\n', n)}FINAL(c)`,
    marker,
  ],
  [
    'parseFinalMarker',
    'unclosed FINAL_VAR( lines split by U+2028',
    (n) => fill('\u2028FINAL_VAR(x', n),
    marker,
  ],
  ['parseFinalMarker', 'unclosed FINAL_VAR( lines', (n) => fill('FINAL_VAR(x\n', n), marker],
];

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Wall-clock and CPU milliseconds of one call (CPU time barely moves with the machine's load). */
function timeCall(parse, text) {
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  parse(text);
  const wall = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  return { wall, cpu: (cpu.user + cpu.system) / 1000 };
}

/**
 * `RUNS` calls on 1 MiB and on 4 MiB, interleaved so both sizes see the same load, after two
 * warm-up rounds: medians and the worst wall time at 1 MiB, and the growth of the CPU median.
 */
function measure(parse, { small, large }) {
  const samples = { small: [], large: [] };
  for (let round = 0; round < RUNS + 2; round++) {
    const one = timeCall(parse, small);
    const four = timeCall(parse, large);
    if (round < 2) continue;
    samples.small.push(one);
    samples.large.push(four);
  }
  const cpu = median(samples.small.map((sample) => sample.cpu));
  return {
    cpu,
    wall: median(samples.small.map((sample) => sample.wall)),
    worst: Math.max(...samples.small.map((sample) => sample.wall)),
    growth: median(samples.large.map((sample) => sample.cpu)) / Math.max(cpu, 0.01),
  };
}

const ms = (value) => `${value.toFixed(1)} ms`;
const out = (text) => process.stdout.write(`${text}\n`);

out(`@rlm/protocol parser benchmark, ${new Date().toISOString()}, Node ${process.version}`);
// The package is runtime-neutral (no Node built-ins, even here): note the load with `uptime`.
out(`${RUNS} runs per input after 2 warm-up runs; the target applies to the CPU time of one call`);
out('');
out(
  '| Parser | Input (1 MiB) | CPU, median | Wall, median | Wall, worst | Target | Holds | CPU, 1 → 4 MiB |',
);
out('|---|---|---|---|---|---|---|---|');
let missed = 0;
for (const [parser, input, make, parse] of CASES) {
  const result = measure(parse, { small: make(MEBIBYTE), large: make(4 * MEBIBYTE) });
  const holds = result.cpu < TARGET_MS;
  if (!holds) missed++;
  out(
    `| ${parser} | ${input} | ${ms(result.cpu)} | ${ms(result.wall)} | ${ms(result.worst)} | < ${TARGET_MS} ms | ${holds ? 'yes' : 'NO'} | ×${result.growth.toFixed(1)} |`,
  );
}
out('');
out(
  missed === 0
    ? `Every CPU median is under ${TARGET_MS} ms. Linear time grows about ×4 from 1 MiB to 4 MiB (quadratic: ×16).`
    : `${missed} input(s) missed the ${TARGET_MS} ms target.`,
);
process.exitCode = missed === 0 ? 0 : 1;
