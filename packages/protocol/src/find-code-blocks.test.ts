import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { regexFindCodeBlocks } from './__fixtures__/regex-parsers.js';
import { dedentBlock } from './dedent-block.js';
import { findCodeBlockSpans, findCodeBlocks } from './find-code-blocks.js';

/** Text built from the characters that make fence parsing hard, including newlines and backticks. */
const riskyText = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        '```repl\n',
        '```repl',
        '```js\n',
        '```',
        '\n```',
        '\n',
        '\r\n',
        '`',
        ' ',
        '\t',
      ),
      fc.constantFrom('FINAL(', ')', '(', 'x = 1', 'print(x)'),
      fc.string({ maxLength: 8 }),
    ),
    { maxLength: 40 },
  )
  .map((parts) => parts.join(''));

/** A code body as findCodeBlocks returns it: already dedented, trimmed, without a closing fence. */
const codeBody = fc
  .array(
    fc.string({
      unit: fc.constantFrom('a', 'b', '1', ' ', '\t', '\n', '(', ')', '`', '=', '"'),
      maxLength: 30,
    }),
    { maxLength: 5 },
  )
  .map((lines) => dedentBlock(lines.join('\n')))
  .filter((body) => !body.includes('\n```'));

/** Prose between fences: anything without backticks. */
const prose = fc.string({ unit: fc.constantFrom('a', ' ', '\n', '.', '(', ')'), maxLength: 20 });

describe('findCodeBlocks', () => {
  it('extracts one repl block with prose around it', () => {
    const text = "Here's some code:\n```repl\nx = 1 + 2\nprint(x)\n```\nDone.";
    expect(findCodeBlocks(text)).toEqual(['x = 1 + 2\nprint(x)']);
  });

  it('extracts several repl blocks in order', () => {
    const text = 'First:\n```repl\na = 1\n```\nThen:\n```repl\nb = 2\n```\nThat is all.';
    expect(findCodeBlocks(text)).toEqual(['a = 1', 'b = 2']);
  });

  it('returns an empty list for plain text', () => {
    expect(findCodeBlocks('Just plain text without any code blocks.')).toEqual([]);
  });

  it('ignores fences of other languages', () => {
    const text = '```python\nx = 1\n```\nand\n```repl\ny = 2\n```';
    expect(findCodeBlocks(text)).toEqual(['y = 2']);
  });

  it('runs js fences only when the caller opts in', () => {
    const text = '```js\nconst a = 1;\n```\n```repl\nb\n```\n```javascript\nc\n```';
    expect(findCodeBlocks(text)).toEqual(['b']);
    expect(findCodeBlocks(text, { languages: ['js'] })).toEqual(['const a = 1;', 'b']);
    expect(findCodeBlocks(text, { languages: ['js', 'javascript'] })).toEqual([
      'const a = 1;',
      'b',
      'c',
    ]);
  });

  it('matches the repl tag case-sensitively and exactly', () => {
    expect(findCodeBlocks('```REPL\nx\n```')).toEqual([]);
    expect(findCodeBlocks('```repls\nx\n```')).toEqual([]);
  });

  it('accepts trailing spaces after the tag', () => {
    expect(findCodeBlocks('```repl   \nx = 1\n```')).toEqual(['x = 1']);
  });

  it('reads CRLF input and returns LF code', () => {
    expect(findCodeBlocks('Code:\r\n```repl\r\nx = 1\r\ny = 2\r\n```\r\nDone.')).toEqual([
      'x = 1\ny = 2',
    ]);
  });

  it('treats an empty fence as no block', () => {
    expect(findCodeBlocks('```repl\n```')).toEqual([]);
  });

  it('treats a fence holding one blank line as one empty block', () => {
    expect(findCodeBlocks('```repl\n\n```')).toEqual(['']);
  });

  it('ends a block at the first closing fence', () => {
    expect(findCodeBlocks('```repl\na\n```\nb\n```')).toEqual(['a']);
  });

  it('removes common indentation but keeps relative indentation', () => {
    const text = '```repl\n    if (x) {\n      print(x);\n    }\n```';
    expect(findCodeBlocks(text)).toEqual(['if (x) {\n  print(x);\n}']);
  });

  it('drops leading and trailing blank lines of a block', () => {
    expect(findCodeBlocks('```repl\n\n  \nx = 1\n\n```')).toEqual(['x = 1']);
  });

  it('never throws on arbitrary text', () => {
    fc.assert(
      fc.property(riskyText, (text) => {
        expect(Array.isArray(findCodeBlocks(text, { languages: ['js'] }))).toBe(true);
      }),
    );
  });

  it('returns the bodies that were rendered into repl fences', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(prose, codeBody), { maxLength: 4 }), prose, (pairs, tail) => {
        const text =
          pairs.map(([before, body]) => `${before}\n\`\`\`repl\n${body}\n\`\`\`\n`).join('') + tail;
        expect(findCodeBlocks(text)).toEqual(pairs.map(([, body]) => body));
      }),
    );
  });

  it('tries the next tag when the block of an earlier one never closes', () => {
    // A tag ending in a line break takes the blank line into its header, leaving no closing fence.
    const text = '```x\n\n```';
    expect(findCodeBlocks(text, { languages: ['x\n', 'x'] })).toEqual(['']);
    expect(findCodeBlocks(text, { languages: ['x\n'] })).toEqual([]);
    expect(regexFindCodeBlocks(text, { languages: ['x\n', 'x'] })).toEqual(['']);
  });
});

const MEGABYTE = 2 ** 20;

// Megabyte inputs: the timeout is slack for a loaded machine; the speed claim is in `pnpm bench`.
describe('findCodeBlocks on adversarial output', { timeout: 60_000 }, () => {
  it('finds nothing in 40,000 unclosed openings', () => {
    expect(findCodeBlocks('```repl\na'.repeat(40_000))).toEqual([]);
  });

  it('reads 40,000 openings closed once at the end as one block', () => {
    const body = Array.from({ length: 40_000 }, () => 'a```repl').join('\n');
    expect(findCodeBlocks(`\`\`\`repl\n${body}\n\`\`\``)).toEqual([body]);
  });

  it('keeps the blocks before an unclosed fence', () => {
    const text = `\`\`\`repl\nx\n\`\`\`\n${'```repl\na'.repeat(20_000)}`;
    expect(findCodeBlocks(text)).toEqual(['x']);
  });

  it('finds nothing in a megabyte of backticks', () => {
    expect(findCodeBlocks('`'.repeat(MEGABYTE), { languages: ['js'] })).toEqual([]);
  });

  it('finds nothing after an opening followed by a megabyte of spaces', () => {
    expect(findCodeBlocks(`\`\`\`repl${' '.repeat(MEGABYTE)}`)).toEqual([]);
  });

  it('returns a block of 300,000 lines, dedented', () => {
    const lines = Array.from({ length: 300_000 }, (_, index) => (index % 2 ? '    b' : '  a'));
    const block = lines.map((line) => line.slice(2)).join('\n');
    expect(findCodeBlocks(`\`\`\`repl\n${lines.join('\n')}\n\`\`\``)).toEqual([block]);
  });

  it('returns a megabyte of parentheses as one block', () => {
    const code = `${'('.repeat(MEGABYTE / 2)}${')'.repeat(MEGABYTE / 2)}`;
    expect(findCodeBlocks(`\`\`\`repl\n${code}\n\`\`\``)).toEqual([code]);
  });

  it('reads 50,000 small blocks in order', () => {
    const text = Array.from({ length: 50_000 }, (_, index) => `\`\`\`repl\n${index}\n\`\`\``);
    const blocks = findCodeBlocks(text.join('\r\n'));
    expect(blocks).toHaveLength(50_000);
    expect(blocks.at(-1)).toBe('49999');
  });

  it('agrees with the regex parser on the same shapes at a size it can handle', () => {
    const shapes = [
      '```repl\na'.repeat(200),
      `\`\`\`repl\n${'a```repl\n'.repeat(200)}\`\`\``,
      `\`\`\`repl\nx\n\`\`\`\n${'```repl\na'.repeat(200)}`,
      '`'.repeat(2000),
      `\`\`\`repl\n${'  a\n    b\n'.repeat(200)}\`\`\``,
    ];
    for (const text of shapes) expect(findCodeBlocks(text)).toEqual(regexFindCodeBlocks(text));
  });
});

describe('findCodeBlockSpans', () => {
  it('gives each block the response lines between its fences (1-based, inclusive)', () => {
    const text = 'Look:\n```repl\nconst a = 1;\nprint(a)\n```\nthen\n\n```repl\nprint(2)\n```';
    expect(findCodeBlockSpans(text)).toEqual([
      { code: 'const a = 1;\nprint(a)', startLine: 3, endLine: 4 },
      { code: 'print(2)', startLine: 9, endLine: 9 },
    ]);
  });

  it('counts CRLF lines as lines, and gives an empty block one line', () => {
    expect(findCodeBlockSpans('a\r\n```repl\r\nx = 1\r\ny = 2\r\n```\r\n```repl\n\n```')).toEqual([
      { code: 'x = 1\ny = 2', startLine: 3, endLine: 4 },
      { code: '', startLine: 7, endLine: 7 },
    ]);
  });

  it('finds the blocks findCodeBlocks finds, each opened on the line before its first', () => {
    fc.assert(
      fc.property(riskyText, (text) => {
        const spans = findCodeBlockSpans(text, { languages: ['js'] });
        expect(spans.map((span) => span.code)).toEqual(findCodeBlocks(text, { languages: ['js'] }));
        const lines = text.split('\n');
        let previousEnd = 0;
        for (const span of spans) {
          expect(span.startLine).toBeGreaterThan(previousEnd);
          expect(span.endLine).toBeGreaterThanOrEqual(span.startLine);
          expect(lines[span.startLine - 2]).toMatch(/```(repl|js)[^\S\n]*\r?$/);
          previousEnd = span.endLine;
        }
      }),
    );
  });

  it('places rendered bodies on the lines they were rendered at', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(prose, codeBody), { maxLength: 4 }), prose, (pairs, tail) => {
        let text = '';
        const expected: { startLine: number; endLine: number }[] = [];
        for (const [before, body] of pairs) {
          text += `${before}\n\`\`\`repl\n`;
          const startLine = text.split('\n').length;
          text += `${body}\n\`\`\`\n`;
          expected.push({ startLine, endLine: startLine + body.split('\n').length - 1 });
        }
        text += tail;
        expect(
          findCodeBlockSpans(text).map(({ startLine, endLine }) => ({ startLine, endLine })),
        ).toEqual(expected);
      }),
    );
  });
});
