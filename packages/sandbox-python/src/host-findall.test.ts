import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOST_SCAN_MIN_CHARS } from './child/host-regex-scan.js';
import { createPythonSandbox } from './create-python-sandbox.js';
import type { PythonSandbox } from './python-sandbox.js';
import { run, TEST_MEMORY_BYTES } from './sandbox-cases.test-helpers.js';

/**
 * Just over the size from which the interpreter thread keeps a payload for scans: ASCII lines of
 * words, numbers, codes and punctuation, with the whitespace the engines class differently (\r,
 * \v, \f, \x1c–\x1f), lines that end in spaces, empty lines, and a final newline.
 */
function asciiContext(): string {
  const words = ['alpha', 'Beta', 'GAMMA', 'delta_4', 'x', 'ab', 'aab', 'b', '', 'NEEDLE-42'];
  const glue = [' ', ' ', ', ', '\t', '-', '.', '\r', '\x1c', '\v', '\f', '  ', '_', '(', ')', '$'];
  let seed = 7;
  const next = (size: number): number => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed % size;
  };
  const lines: string[] = [];
  let size = 0;
  while (size <= HOST_SCAN_MIN_CHARS) {
    const parts: string[] = [];
    const count = next(9);
    for (let index = 0; index < count; index++) {
      const kind = next(4);
      parts.push(kind === 0 ? String(next(100_000)) : (words[next(words.length)] as string));
      parts.push(glue[next(glue.length)] as string);
    }
    if (next(11) === 0) parts.push(`${1000 + next(9000)}-XYZ`);
    const line = parts.join('');
    lines.push(line);
    size += line.length + 1;
  }
  return `${lines.join('\n')}\n`;
}

/** Python source of a str literal (JSON's string syntax is Python's too). */
const literal = (value: string): string => JSON.stringify(value);

/** Prints whether findall over the payload (host) and over an equal copy (Python's re) agree. */
const compareBlock = (pattern: string, flags: number): string => `
_p, _f = ${literal(pattern)}, ${flags}
def _outcome(subject):
    try:
        return ('ok', re.findall(_p, subject, _f))
    except Exception as error:
        return ('error', type(error).__name__, str(error))
_ours, _theirs = _outcome(context), _outcome(_copy)
print('same' if _ours == _theirs else repr((_ours, _theirs))[:2000])
`;

const ATOMS = [
  'a',
  'b',
  'B',
  'x',
  '4',
  ' ',
  '.',
  '\\d',
  '\\D',
  '\\w',
  '\\W',
  '\\s',
  '\\S',
  '\\.',
  '\\-',
  '\\$',
  '\\(',
  '\\r',
  '\\n',
  '\\t',
  '[a-c]',
  '[^a-z]',
  '[0-9_]',
  '[\\s,]',
  '[^\\s]',
  '[A-Z]',
  '[\\w.-]',
  '[-a]',
  '[a-]',
];
const QUANTIFIERS = ['', '', '', '*', '+', '?', '{2}', '{1,3}', '{,2}', '{2,}', '*?', '+?', '??'];
const ASSERTIONS = ['^', '$', '\\b', '\\B', '\\A', '\\Z'];

/** Patterns mostly inside the subset the host translates, with some outside it. */
const patternArbitrary: fc.Arbitrary<string> = fc.letrec<{ sequence: string; item: string }>(
  (tie) => ({
    sequence: fc.array(tie('item'), { minLength: 1, maxLength: 4 }).map((items) => items.join('')),
    item: fc.oneof(
      {
        weight: 6,
        arbitrary: fc
          .tuple(fc.constantFrom(...ATOMS), fc.constantFrom(...QUANTIFIERS))
          .map(([atom, quantifier]) => atom + quantifier),
      },
      { weight: 1, arbitrary: fc.constantFrom(...ASSERTIONS) },
      {
        weight: 1,
        arbitrary: fc
          .tuple(
            fc.constantFrom('(', '(?:', '(?P<name>', '(?=', '(?!', '(?<=x', '(?<!'),
            tie('sequence'),
            fc.constantFrom(')', ')', '|b)', '|)', ')+'),
          )
          .map(([open, body, close]) => (open === '(?<=x' ? '(?<=x)' : open + body + close)),
      },
      {
        weight: 1,
        arbitrary: fc.tuple(tie('sequence'), tie('sequence')).map(([a, b]) => `${a}|${b}`),
      },
    ),
  }),
).sequence;

const flagsArbitrary = fc
  .subarray([2, 8, 16, 256, 64])
  .map((bits) => bits.reduce((sum, bit) => sum + bit, 0));

let sandbox: PythonSandbox;

beforeAll(async () => {
  sandbox = await createPythonSandbox({
    context: asciiContext(),
    limits: { memoryBytes: TEST_MEMORY_BYTES * 2, cpuSliceMs: 5_000 },
  });
  // An equal str that is not the payload's object: findall over it is always Python's own.
  await run(sandbox, 'import re\n_copy = context[:-1] + context[-1:]\nassert _copy is not context');
});

afterAll(async () => {
  await sandbox.dispose();
});

describe('re.findall over a large ASCII payload', () => {
  it('runs on the host: Python’s own findall is not called', async () => {
    const out = await run(
      sandbox,
      `import sys
_seen = []
def _watch(frame, event, arg):
    if event == 'c_call':
        _seen.append(getattr(arg, '__qualname__', ''))
sys.setprofile(_watch)
_found = re.findall(r"[0-9]{4}-XYZ", context)
sys.setprofile(None)
print(len(_found) > 0, 'Pattern.findall' in _seen)`,
    );
    expect(out).toBe('True False\n');
  });

  it('finds what Python’s re finds, for generated patterns and flags', async () => {
    await fc.assert(
      fc.asyncProperty(patternArbitrary, flagsArbitrary, async (pattern, flags) => {
        const result = await sandbox.execute(compareBlock(pattern, flags));
        // A pattern that backtracks for long in Python's re is skipped, not waited for.
        if (result.error?.code === 'sandbox.timeout') return;
        expect(result.error).toBeNull();
        expect(result.stdout).toBe('same\n');
      }),
      // Each run is a findall over 1 MiB in Pyodide (~0.3 s): 25 a run, new ones every run.
      { numRuns: 25 },
    );
  });

  it('finds what Python’s re finds for patterns written as a model writes them', async () => {
    const cases: [string, number][] = [
      ['[0-9]{4}-[A-Z]{3}', 0],
      ['(\\d+)-([A-Z]+)', 0],
      ['(?P<word>[a-z]+)_(\\d)', 0],
      ['NEEDLE-\\d+', 0],
      ['^\\w+', 8],
      ['\\s+$', 8],
      ['x$', 0],
      ['.\\r', 0],
      ['\\s\\S', 0],
      ['b*', 0],
      ['(a)|b', 0],
      ['needle', 2],
      ['[^a-z]{3}', 2],
      ['delta_\\d\\b', 2],
      ['(?<=ab)b', 0],
      ['a(?=a)', 0],
      ['(', 0],
      ['[', 0],
      ['a{2,1}', 0],
      ['(?<=a+)b', 0],
    ];
    for (const [pattern, flags] of cases) {
      expect(await run(sandbox, compareBlock(pattern, flags)), pattern).toBe('same\n');
    }
    // A compiled pattern, keyword arguments, and flags with a compiled pattern (a ValueError).
    expect(
      await run(
        sandbox,
        `_c = re.compile(r"(\\w)(\\d)", re.I)
print(re.findall(_c, context) == re.findall(_c, _copy), re.findall(pattern=r"XYZ", string=context) == _copy.count("XYZ") * ["XYZ"])
try:
    re.findall(_c, context, re.M)
except ValueError as error:
    print(error)`,
      ),
    ).toBe('True True\ncannot process flags argument with a compiled pattern\n');
  });

  // Last: after an interrupted scan the session scans in Python.
  it('stops a scan that runs past the block’s CPU time as Python’s re would be stopped', async () => {
    const slow = await sandbox.execute('n = 1\nre.findall(r".*.*.*.*Q", context, re.S)');
    expect(slow.error?.code).toBe('sandbox.timeout');
    // The interpreter was not replaced: the variables are there, and findall still answers.
    expect(await run(sandbox, compareBlock('[0-9]{4}-XYZ', 0))).toBe('same\n');
    expect(await run(sandbox, 'print(n)')).toBe('1\n');
  });
});
