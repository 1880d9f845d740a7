import { DEFAULT_MAX_OUTPUT_CHARS } from '@rlm/protocol';
import { groupDigits } from './group-digits.js';

const FENCE = '```';
const OUTPUT_CAP = groupDigits(DEFAULT_MAX_OUTPUT_CHARS);

const TURNS = [
  '## Your REPL',
  '',
  '### How a turn works',
  '- Write JavaScript in code blocks fenced with three backticks and the tag `repl`, as in the examples below. Every block of a turn runs, in order, and then you see what each one printed. Only what you print comes back to you.',
  '- The code runs in an isolated sandbox without files, network or processes. Host functions are async: `await` every call. Top-level `await` works.',
  '- Top-level `const`, `let`, `function` and `class` declarations stay defined in later blocks and turns. Keep intermediate results in variables instead of recomputing them, and use `let` for values you will reassign.',
  `- Each block's output is cut at about ${OUTPUT_CAP} characters. Print sizes, counts, samples and summaries, never a whole document.`,
  '',
  '### Variables',
  '- `context` holds the data for the task: a string, an array or an object. With several inputs they are `context_0`, `context_1`, … (`context` is `context_0`). In a session, earlier conversations are in `history` (or `history_0`, `history_1`, …).',
  '- `__rlm` is read-only run information: `depth`, `maxDepth`, `iteration`, `maxIterations`, `runId`, `parentRunId` and `budget` (what is left). Use it to pace yourself.',
  '- `SHOW_VARS()` lists the variables you have created. `print(...)` is the same as `console.log(...)`.',
];

const HELPERS = [
  '',
  '### Fast scanning helpers',
  'These run on the host, 100–300 times faster than scanning a large `context` with your own JavaScript loops, and return bounded results. Use them before writing a scan by hand. `target` picks another input such as `"context_1"` (default `"context"`).',
  '- `await grep(pattern, { flags, context: n, max, target })` → matching lines with their line numbers and `n` lines around each hit.',
  '- `await find_all(pattern, { max, target })` → matches with their offsets and capture groups.',
  '- `await count(pattern, { target })` → the number of matches.',
  '- `await lines(start, end, { target })` → the text of lines `start` to `end`, numbered as `grep` numbers them.',
  '- `await chunk(n, { overlap, target })` → `{ start, end }` character ranges that split the input into pieces of about `n` characters, neighbours sharing `overlap` characters; slice with them.',
  '',
  `${FENCE}repl`,
  "const hits = await grep('refund|chargeback', { flags: 'i', context: 2, max: 20 });",
  'print(hits);',
  "print(await count('refund', { target: 'context' }));",
  FENCE,
];

/** Without the helpers, a plain scan: the sandbox is slow at whole-context loops, so keep them few. */
const PLAIN_SCANNING = [
  '',
  '### Scanning',
  'Scanning a large `context` in this sandbox is slow (100–300 times slower than native code): prefer one `indexOf`, `match` or `split` over many passes, and look at slices before reading everything.',
  '',
  `${FENCE}repl`,
  "const at = context.indexOf('refund');",
  'print(context.length, at, context.slice(Math.max(0, at - 200), at + 200));',
  FENCE,
];

const SUB_MODELS = [
  '',
  '### Sub-model calls',
  '- `await llm_query(prompt, { model })` → string: one call to a sub-model, with no REPL. Put the text it must read into the prompt.',
  '- `await llm_query_batched(prompts, { model })` → string[]: the calls run concurrently and the answers come back in the same order. A call that fails gives an "Error: …" string in its slot instead of failing the batch, so check for them.',
  '- Sub-models have large windows. Give each call a substantial piece (tens of thousands up to a few hundred thousand characters) and a precise question: a few well-filled calls beat hundreds of tiny ones. Keep one batch to a few dozen prompts, and run several batches in turn when there is more.',
  '- Ask for short, structured replies (a number, a list, JSON) so you can combine them in code.',
  '',
  `${FENCE}repl`,
];

const HELPER_RANGES = ['const ranges = await chunk(80_000, { overlap: 500 });'];

const PLAIN_RANGES = [
  'const ranges = [];',
  'for (let start = 0; start < context.length; start += 80_000) ranges.push({ start, end: start + 80_500 });',
];

const FAN_OUT = [
  'const answers = await llm_query_batched(',
  '  ranges.map(({ start, end }, i) =>',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: JavaScript shown to the model
  '    `Part ${i + 1} of ${ranges.length} of a log. List every failed login as JSON lines {"user", "time"}.\\n\\n` +',
  '    context.slice(start, end)),',
  ');',
  "const failed = answers.filter((answer) => !answer.startsWith('Error:')).flatMap((answer) => answer.split('\\n').filter(Boolean));",
  'print(ranges.length, failed.length, failed.slice(0, 5));',
  FENCE,
];

const FINISHING = [
  '',
  '### Finishing',
  'End the run in one of two ways, either by calling it in code or by writing it at the start of a line of your reply, outside any code block:',
  '- `FINAL(answer)`: the answer itself.',
  "- `FINAL_VAR(name)`: the answer is the current value of the REPL variable `name` (in code, pass the name as a string: `FINAL_VAR('result')`). The variable must already exist: create it and print it in an earlier block, then name it. Naming a variable that does not exist gives no answer, and the run goes on.",
  'Do not finish before you have run code on the data and checked the answer.',
];

/**
 * The REPL section every RLM with a sandbox gets: how turns work, the variables, the fast scanning
 * helpers (or, when the sandbox has none, how to scan by hand), sub-model calls with chunking and
 * batching guidance, and how to finish. It documents the sandbox API of `@rlm/sandbox` and must
 * change when that API does.
 */
export function environment(contextHelpers = true): string {
  return [
    ...TURNS,
    ...(contextHelpers ? HELPERS : PLAIN_SCANNING),
    ...SUB_MODELS,
    ...(contextHelpers ? HELPER_RANGES : PLAIN_RANGES),
    ...FAN_OUT,
    ...FINISHING,
  ].join('\n');
}

/** The REPL section of a sandbox with the context helpers (the default). */
export const ENVIRONMENT = environment(true);
