import { DEFAULT_MAX_OUTPUT_CHARS } from '@rlm/protocol';
import { groupDigits } from './group-digits.js';

const FENCE = '```';
const OUTPUT_CAP = groupDigits(DEFAULT_MAX_OUTPUT_CHARS);

const TURNS = [
  '## Your REPL',
  '',
  '### How a turn works',
  '- Write Python in code blocks fenced with three backticks and the tag `repl`, as in the examples below. Every block of a turn runs, in order, and then you see what each one printed. Only what you print comes back to you, plus the value of a last line that is an expression, shown as in a notebook.',
  '- The code runs in an isolated Python 3 interpreter with the standard library and without files, network, subprocesses or extra packages. Host functions are ordinary blocking calls: each returns its result directly. There is no `await` and no `asyncio`; for parallel work use the batched functions below.',
  '- Variables, functions, classes and imports stay defined in later blocks and turns. Keep intermediate results in variables instead of recomputing them.',
  `- Each block's output is cut at about ${OUTPUT_CAP} characters. Print sizes, counts, samples and summaries, never a whole document.`,
  '',
  '### Variables',
  '- `context` holds the data for the task: a `str`, a `list` or a `dict`. With several inputs they are `context_0`, `context_1`, … (`context` is `context_0`). In a session, earlier conversations are in `history` (or `history_0`, `history_1`, …), each a list of messages.',
  "- `__rlm` is read-only run information, a mapping: `__rlm['depth']`, `'maxDepth'`, `'iteration'`, `'maxIterations'`, `'runId'`, `'parentRunId'` and `'budget'` (what is left). Use it to pace yourself.",
  "- `SHOW_VARS()` returns a description of the variables you have created; print it. `print(...)` is Python's own.",
  '- A host function that cannot run your call raises `HostError`; catch it with `except HostError` when you want to go on.',
];

const HELPERS = [
  '',
  '### Fast scanning helpers',
  "These run on the host, 10–100 times faster than Python's `re` or your own loops over a large `context`, and return bounded results. Use them before writing a scan by hand. A pattern is a regular expression as a string or a compiled `re.Pattern` (`\\w`, `\\d` and `\\b` match ASCII only); `flags` takes `re` flags or letters such as `'i'`; `target=1` (or `'context_1'`) picks another input (default `context`).",
  '- `grep(pattern, flags=…, context=n, max=…, target=…)` → `{"matches": [{"line", "text", "before", "after"}], "total"}`: matching lines with their line numbers and `n` lines around each hit.',
  '- `find_all(pattern, flags=…, max=…, target=…)` → `{"matches": [{"match", "index", "groups"}], "total"}`: each match with its offset (`context[index:]` starts at it) and capture groups.',
  '- `count(pattern, flags=…, target=…)` → the number of matches.',
  '- `lines(start, end, target=…)` → the text of lines `start` to `end` as one string, numbered as `grep` numbers them.',
  '- `chunk(n, overlap=…, target=…)` → a list of `{"start", "end"}` character ranges that split the input into pieces of about `n` characters, neighbours sharing `overlap` characters; slice with them.',
  '',
  `${FENCE}repl`,
  "hits = grep(r'refund|chargeback', flags='i', context=2, max=20)",
  "print(hits['total'])",
  "for hit in hits['matches'][:5]:",
  "    print(hit['line'], hit['text'])",
  "print(count('refund'))",
  FENCE,
];

/** Without the helpers, a plain scan: Python runs in WebAssembly here, so keep passes few. */
const PLAIN_SCANNING = [
  '',
  '### Scanning',
  'Python runs here compiled to WebAssembly, several times slower than natively: prefer one `str.find`, `re.finditer` or `split` over many passes, and look at slices before reading everything.',
  '',
  `${FENCE}repl`,
  "at = context.find('refund')",
  'print(len(context), at, context[max(0, at - 200):at + 200])',
  FENCE,
];

const SUB_MODELS = [
  '',
  '### Sub-model calls',
  '- `llm_query(prompt, model=…)` → `str`: one call to a sub-model, with no REPL. It waits for the reply. Put the text the sub-model must read into the prompt.',
  '- `llm_query_batched(prompts, model=…)` → `list[str]`: the calls run concurrently on the host, so a batch takes about as long as its slowest call, and the answers come back in the same order. A call that fails gives an "Error: …" string in its slot instead of failing the batch, so check for them. One batch beats a loop of `llm_query` calls, which run one after another.',
  '- Sub-models have large windows. Give each call a substantial piece (tens of thousands up to a few hundred thousand characters) and a precise question: a few well-filled calls beat hundreds of tiny ones. Keep one batch to a few dozen prompts, and run several batches in turn when there is more.',
  '- Ask for short, structured replies (a number, a list, JSON for `json.loads`) so you can combine them in code.',
  '',
  '### Chunking',
  'Choose how to cut `context` from what you saw of it:',
  "- by structure, when it has one: split on what separates its units (`context.split('\\n## ')` for markdown sections, lines for a log, items for a `list`) and group the units into pieces of the size above;",
  '- by size, when it has none: consecutive character ranges, with a small overlap so nothing is cut in half unseen;',
  '- by search, when the question names something findable: locate the candidates first and send only their neighbourhoods.',
  '',
  `${FENCE}repl`,
];

const HELPER_RANGES = ['ranges = chunk(80_000, overlap=500)'];

const PLAIN_RANGES = [
  "ranges = [{'start': start, 'end': start + 80_500} for start in range(0, len(context), 80_000)]",
];

const FAN_OUT = [
  'prompts = [',
  '    f\'Part {i + 1} of {len(ranges)} of a log. List every failed login as JSON lines {{"user", "time"}}.\\n\\n\'',
  "    + context[r['start']:r['end']]",
  '    for i, r in enumerate(ranges)',
  ']',
  'answers = llm_query_batched(prompts)',
  "failed = [line for answer in answers if not answer.startswith('Error:') for line in answer.splitlines() if line.strip()]",
  'print(len(ranges), len(failed), failed[:5])',
  FENCE,
];

const FINISHING = [
  '',
  '### Finishing',
  'End the run in one of two ways, either by calling it in code or by writing it at the start of a line of your reply, outside any code block:',
  '- `FINAL(answer)`: the answer itself (in code, any value: a dict, list, bool or None becomes JSON text, anything else `str(value)`).',
  "- `FINAL_VAR(name)`: the answer is the current value of the REPL variable `name` (in code, pass the name as a string: `FINAL_VAR('result')`). The variable must already exist: create it and print it in an earlier block, then name it. Naming a variable that does not exist gives no answer, and the run goes on.",
  'Do not finish before you have run code on the data and checked the answer.',
];

/**
 * The REPL section of an RLM whose REPL runs Python (`@rlm/sandbox-python`): how turns work, the
 * variables, the host scanning helpers (or how to scan by hand), blocking sub-model calls with
 * chunking strategies and a batched fan-out, and how to finish. It documents that sandbox's API
 * (keyword arguments, blocking calls, `HostError`) and must change when that API does.
 */
export function pythonEnvironment(contextHelpers = true): string {
  return [
    ...TURNS,
    ...(contextHelpers ? HELPERS : PLAIN_SCANNING),
    ...SUB_MODELS,
    ...(contextHelpers ? HELPER_RANGES : PLAIN_RANGES),
    ...FAN_OUT,
    ...FINISHING,
  ].join('\n');
}

/** The Python REPL section of a sandbox with the context helpers (the default). */
export const PYTHON_ENVIRONMENT = pythonEnvironment(true);
