import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { regexParseFinalMarker } from './__fixtures__/regex-parsers.js';
import { findFinalAnswer, parseFinalMarker, type ResolveVariable } from './find-final-answer.js';

/** A sandbox stand-in: a map of variables already stringified, read asynchronously. */
function environment(variables: Record<string, string>): {
  resolve: ResolveVariable;
  set: (name: string, value: string) => void;
} {
  const values = new Map(Object.entries(variables));
  return {
    resolve: async (name) => values.get(name),
    set: (name, value) => {
      values.set(name, value);
    },
  };
}

async function finalValue(text: string, resolve?: ResolveVariable): Promise<string | null> {
  return (await findFinalAnswer(text, resolve))?.value ?? null;
}

/** Text built from the fragments that make marker parsing hard. */
const riskyText = fc
  .array(
    fc.oneof(
      fc.constantFrom('FINAL(', 'FINAL_VAR(', 'FINAL()', ')', '(', '"', "'", '```repl\n', '\n```'),
      fc.constantFrom('\n', '\r\n', ' ', '\t', 'x', '42'),
      fc.string({ maxLength: 8 }),
    ),
    { maxLength: 40 },
  )
  .map((parts) => parts.join(''));

describe('findFinalAnswer without an environment', () => {
  it.each([
    ['The answer is:\nFINAL(42)', '42'],
    ['FINAL(This is a\nmultiline answer)', 'This is a\nmultiline answer'],
    ['The result is FINAL(42)', null],
    ['   FINAL(answer with spaces)', 'answer with spaces'],
    ['FINAL(func(arg1, arg2))', 'func(arg1, arg2)'],
    ['FINAL([1, 2, 3], (4, 5))', '[1, 2, 3], (4, 5)'],
    ['FINAL(calculate(10, 20) + process(data))', 'calculate(10, 20) + process(data)'],
    ["FINAL('hello world')", "'hello world'"],
    ['FINAL("test")', '"test"'],
    ['FINAL(123.45)', '123.45'],
    ['Still working on the problem...', null],
    ['Check the variable:\nFINAL_VAR(result)', null],
    ['FINAL_VAR(result)\nFINAL(direct_answer)', null],
  ])('reads %j as %j', async (text, expected) => {
    expect(await finalValue(text)).toBe(expected);
  });

  it('reports the kind of a FINAL answer', async () => {
    expect(await findFinalAnswer('FINAL(yes)')).toEqual({ kind: 'final', value: 'yes' });
  });

  it('treats FINAL() as the empty-string answer', async () => {
    expect(await findFinalAnswer('Done.\nFINAL()')).toEqual({ kind: 'final', value: '' });
  });

  it('is case-sensitive and needs no space before the parenthesis', async () => {
    expect(await finalValue('final(42)')).toBeNull();
    expect(await finalValue('FINAL (42)')).toBeNull();
  });

  it('needs only whitespace after the closing parenthesis', async () => {
    expect(await finalValue('FINAL(42)   ')).toBe('42');
    expect(await finalValue('FINAL(42) and more')).toBeNull();
  });

  it('takes the first of several FINAL lines instead of merging them', async () => {
    expect(await finalValue('FINAL(first)\nFINAL(second)')).toBe('first');
  });

  it('ends an answer with unbalanced parentheses at its last line-closing parenthesis', async () => {
    expect(await finalValue('FINAL(a (b)')).toBe('a (b');
    expect(await finalValue('FINAL(a (b)\nFINAL(c)')).toBe('a (b');
  });

  it('ignores markers written inside a repl fence', async () => {
    expect(await finalValue('Running:\n```repl\nFINAL(from code)\n```')).toBeNull();
    expect(await finalValue('```repl\nFINAL_VAR(x)\n```\nFINAL(from text)')).toBe('from text');
  });

  it('reads CRLF text', async () => {
    expect(await finalValue('Done.\r\nFINAL(a\r\nb)\r\n')).toBe('a\nb');
  });
});

describe('findFinalAnswer with an environment', () => {
  it.each([['FINAL_VAR(x)'], ["FINAL_VAR('x')"], ['FINAL_VAR("x")']])(
    'resolves %s to the variable value',
    async (text) => {
      const { resolve } = environment({ x: '42' });
      expect(await findFinalAnswer(text, resolve)).toEqual({
        kind: 'final_var',
        value: '42',
        varName: 'x',
      });
    },
  );

  it('gives no answer for a missing variable', async () => {
    const { resolve } = environment({ x: '42' });
    expect(await finalValue('FINAL_VAR(nonexistent)', resolve)).toBeNull();
  });

  it('gives no answer for an empty variable', async () => {
    const { resolve } = environment({ x: '' });
    expect(await finalValue('FINAL_VAR(x)', resolve)).toBeNull();
  });

  it('prefers FINAL_VAR over a FINAL line', async () => {
    const { resolve } = environment({ x: '42' });
    expect(await finalValue('FINAL_VAR(x)\nFINAL(other)', resolve)).toBe('42');
    expect(await finalValue('FINAL(other)\nFINAL_VAR(x)', resolve)).toBe('42');
  });

  it('reads the current value of the variable', async () => {
    const env = environment({ x: '42' });
    env.set('x', '100');
    expect(await finalValue('FINAL_VAR(x)', env.resolve)).toBe('100');
  });

  it('does not ask the environment when there is no FINAL_VAR', async () => {
    const asked: string[] = [];
    const resolve: ResolveVariable = async (name) => {
      asked.push(name);
      return 'unused';
    };
    expect(await finalValue('FINAL(direct)', resolve)).toBe('direct');
    expect(asked).toEqual([]);
  });
});

describe('parseFinalMarker', () => {
  it('strips one layer of double and then single quotes from a variable name', () => {
    expect(parseFinalMarker('FINAL_VAR( "result" )')).toEqual({
      kind: 'final_var',
      varName: 'result',
    });
    expect(parseFinalMarker(`FINAL_VAR("'result'")`)).toEqual({
      kind: 'final_var',
      varName: 'result',
    });
  });

  it('never throws on arbitrary text', () => {
    fc.assert(
      fc.property(riskyText, (text) => {
        const marker = parseFinalMarker(text);
        expect(marker === null || typeof marker.kind === 'string').toBe(true);
      }),
    );
  });

  it('finds any FINAL line content that has balanced parentheses', () => {
    const content = fc.string({ unit: fc.constantFrom('a', ' ', ',', '\n'), maxLength: 20 });
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', ' ', '.'), maxLength: 20 }),
        content,
        (prose, inner) => {
          const text = `${prose}\nFINAL((${inner}))\nFINAL(later)`;
          expect(parseFinalMarker(text)).toEqual({ kind: 'final', value: `(${inner})`.trim() });
        },
      ),
    );
  });
});

describe('findFinalAnswer', () => {
  it('never throws on arbitrary text, with or without an environment', async () => {
    const { resolve } = environment({ x: '42', result: 'ok' });
    await fc.assert(
      fc.asyncProperty(riskyText, async (text) => {
        await findFinalAnswer(text);
        await findFinalAnswer(text, resolve);
      }),
    );
  });
});

const MEGABYTE = 2 ** 20;

// Megabyte inputs: the timeout is slack for a loaded machine; the speed claim is in `pnpm bench`.
describe('parseFinalMarker on adversarial output', { timeout: 60_000 }, () => {
  it('reads a FINAL line after 200 KB of unclosed fences', () => {
    const fences = '```\na'.repeat(40_000);
    expect(parseFinalMarker(`${fences}\nFINAL(done)`)).toEqual({ kind: 'final', value: 'done' });
    expect(parseFinalMarker(fences)).toBeNull();
  });

  it('ignores markers in 20,000 closed fences and reads the one after them', () => {
    const fences = '```repl\nFINAL_VAR(x)\nFINAL(no)\n```\n'.repeat(20_000);
    expect(parseFinalMarker(`${fences}FINAL(yes)`)).toEqual({ kind: 'final', value: 'yes' });
  });

  it('reads a FINAL line after a megabyte of backticks', () => {
    const text = `${'`'.repeat(MEGABYTE)}\nFINAL(x)`;
    expect(parseFinalMarker(text)).toEqual({ kind: 'final', value: 'x' });
  });

  it('finds no answer in FINAL( followed by a megabyte of opening parentheses', () => {
    expect(parseFinalMarker(`FINAL(${'('.repeat(MEGABYTE)}`)).toBeNull();
  });

  it('reads a megabyte of balanced parentheses', () => {
    const value = `${'('.repeat(MEGABYTE / 2)}${')'.repeat(MEGABYTE / 2)}`;
    expect(parseFinalMarker(`FINAL(${value})`)).toEqual({ kind: 'final', value });
  });

  it('ends a megabyte of closing parentheses at the last one', () => {
    const text = `FINAL(${')'.repeat(MEGABYTE)}`;
    expect(parseFinalMarker(text)).toEqual({ kind: 'final', value: ')'.repeat(MEGABYTE - 1) });
  });

  it('stops an unbalanced answer before the next FINAL line among 100,000 line-closing parentheses', () => {
    const lines = 'a (b)\n'.repeat(100_000);
    expect(parseFinalMarker(`FINAL(${lines}FINAL(c)`)).toEqual({
      kind: 'final',
      value: lines.trim().slice(0, -1),
    });
  });

  it('settles 50,000 unclosed FINAL_VAR lines split by U+2028 in one pass', () => {
    const lines = '\u2028FINAL_VAR(x'.repeat(50_000);
    expect(parseFinalMarker(lines)).toBeNull();
    expect(parseFinalMarker(`${lines})`)).toEqual({
      kind: 'final_var',
      varName: lines.slice('\u2028FINAL_VAR('.length),
    });
  });

  it('reads the FINAL_VAR after 100,000 unclosed ones', () => {
    const text = `${'FINAL_VAR(x\n'.repeat(100_000)}FINAL_VAR(y)`;
    expect(parseFinalMarker(text)).toEqual({ kind: 'final_var', varName: 'y' });
  });

  it('agrees with the regex parser on the same shapes at a size it can handle', () => {
    const shapes = [
      `${'```\na'.repeat(200)}\nFINAL(done)`,
      `${'`'.repeat(2000)}\nFINAL(x)`,
      `FINAL(${')'.repeat(2000)}`,
      `FINAL(${'a (b)\n'.repeat(200)}FINAL(c)`,
      `${'\u2028FINAL_VAR(x'.repeat(200)})`,
      `${'FINAL_VAR(x\n'.repeat(200)}FINAL_VAR(y)`,
    ];
    for (const text of shapes) expect(parseFinalMarker(text)).toEqual(regexParseFinalMarker(text));
  });
});
