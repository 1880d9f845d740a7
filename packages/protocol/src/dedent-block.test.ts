import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { riskyText } from './__fixtures__/risky-text.js';
import { dedentBlock } from './dedent-block.js';

// Some inputs have 300,000 lines: the timeout is slack for a loaded machine, not a time bound.
describe('dedentBlock', { timeout: 60_000 }, () => {
  it('removes common indentation but keeps relative indentation', () => {
    expect(dedentBlock('    if (x) {\n      print(x);\n    }')).toBe('if (x) {\n  print(x);\n}');
  });

  it('keeps empty lines between indented lines', () => {
    expect(dedentBlock('  a\n\n  b\n\n\n    c')).toBe('a\n\nb\n\n\n  c');
  });

  it('counts tabs and spaces alike and ignores blank lines for the common indentation', () => {
    expect(dedentBlock('\t\ta\n\n \t\tb\n  \n')).toBe('a\n\n\tb');
  });

  it('drops leading and trailing blank lines and trailing whitespace', () => {
    expect(dedentBlock('\r\n  \n\u00a0\n  x = 1  \r\n\n')).toBe('x = 1');
  });

  it('gives an empty string for a blank body', () => {
    expect(dedentBlock(' \n\t\n\u2028')).toBe('');
  });

  it('is idempotent', () => {
    fc.assert(
      fc.property(riskyText, (text) => {
        const once = dedentBlock(text);
        expect(dedentBlock(once)).toBe(once);
      }),
    );
  });

  it('dedents a body of 300,000 lines', () => {
    const lines = Array.from({ length: 300_000 }, (_, index) => `${' '.repeat(2 + (index % 3))}x`);
    const expected = lines.map((line) => line.slice(2)).join('\n');
    expect(dedentBlock(lines.join('\n'))).toBe(expected);
  });

  it('drops 300,000 leading and trailing blank lines', () => {
    const blank = '  \n'.repeat(300_000);
    expect(dedentBlock(`${blank}    x\n      y\n${blank}`)).toBe('x\n  y');
  });
});
