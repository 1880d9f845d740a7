// The `python` section of bench/side-by-side.mjs: code a model trained on the reference engine writes
// in its Python REPL (`re`, `str` methods) over a 50 MB context, in our Python REPL
// (@rlm/sandbox-python, Pyodide) and in the reference engine's (CPython's `exec`), the same source on
// both sides. Each row also checks that both sides printed the same thing.
import { median } from '../scripts/bench/targets-table.mjs';
import { REGEX, text } from './side-by-side-children.mjs';

/** The rows: what is measured, then the Python source both sides run. */
export const PYTHON_ROWS = [
  [
    'Python `re.findall` over 50 MB, character class',
    `import re\nprint(len(re.findall(r"${REGEX}", context)))`,
  ],
  [
    '  the same over an equal copy of the text (Pyodide: always its own `re`)',
    `import re\nprint(len(re.findall(r"${REGEX}", copy)))`,
  ],
  [
    'Python `re.findall` over 50 MB, literal prefix',
    'import re\nprint(len(re.findall(r"NEEDLE-[0-9]+", context)))',
  ],
  [
    'Python `re.search` over 50 MB, literal prefix, absent',
    'import re\nprint(re.search(r"ABSENT-[0-9]+", context))',
  ],
  [
    'Python `for m in re.finditer(…)` over 50 MB',
    `import re\nn = 0\nfor m in re.finditer(r"${REGEX}", context):\n    n += len(m.group(0))\nprint(n)`,
  ],
  ['Python `context.find(absent)` over 50 MB', 'print(context.find("NOT-IN-THE-TEXT"))'],
  ["Python `context.split('\\n')` over 50 MB", 'print(len(context.split("\\n")))'],
  ['Python `context.count(…)` over 50 MB', 'print(context.count("XYZ"))'],
];

/**
 * Measures PYTHON_ROWS: ours in one Python sandbox holding the text, theirs through the driver's
 * `exec` after a `load` of the same text; `alternate` interleaves the rounds.
 */
export async function pythonSection({ importDist, reference, alternate, fileOf, rounds, table }) {
  const { createPythonSandbox, closePythonPool } = await importDist(
    'packages/sandbox-python/dist/index.js',
  );
  const context = text(50_000_000);
  const path = fileOf('python.txt', context);
  const sandbox = await createPythonSandbox({ context });
  await reference?.call('load', { file: path });
  // An equal str that is not the payload's own object (what `context[1:]`-like copies meet).
  const setup = 'copy = context[:-1] + context[-1:]';
  const prepared = await sandbox.execute(setup);
  if (prepared.error) throw new Error(`${setup}: ${prepared.error.message}`);
  await reference?.call('exec', { code: setup });
  try {
    for (const [what, code] of PYTHON_ROWS) {
      const printed = { ours: undefined, theirs: undefined };
      const samples = await alternate(
        rounds,
        async () => {
          const started = performance.now();
          const result = await sandbox.execute(code);
          const wallMs = performance.now() - started;
          if (result.error) throw new Error(`${code}: ${result.error.message}`);
          printed.ours = result.stdout;
          return { wallMs };
        },
        async () => {
          const result = await reference.call('exec', { code });
          printed.theirs = result.stdout;
          return result;
        },
      );
      const same = printed.theirs === undefined || printed.ours === printed.theirs;
      if (!same) {
        throw new Error(`${what}: ours printed ${printed.ours}, rlmpaper ${printed.theirs}`);
      }
      const middle = (list) => (list.length === 0 ? undefined : median(list.map((s) => s.wallMs)));
      table.row(what, {
        goal: '≤ 1×',
        ours: middle(samples.ours),
        theirs: middle(samples.theirs),
        unit: 'ms',
        ratioGoal: 1,
        // The first call of a row also pays for what a session does once (the scan thread's start).
        note: `prints ${printed.ours.trim().slice(0, 30)}; first call ${samples.ours[0]?.wallMs.toFixed(0)} ms`,
      });
    }
  } finally {
    await sandbox.dispose();
    await closePythonPool?.();
    await reference?.call('load', { text: '' });
  }
}
