import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codeFencePattern, dedentBlock, findCodeBlocks } from './find-code-blocks.js';

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
});

describe('dedentBlock', () => {
  it('is idempotent', () => {
    fc.assert(
      fc.property(riskyText, (text) => {
        const once = dedentBlock(text);
        expect(dedentBlock(once)).toBe(once);
      }),
    );
  });
});

describe('codeFencePattern', () => {
  it('escapes tags so they match literally', () => {
    const pattern = codeFencePattern(['c++']);
    expect([...'```c++\nint x;\n```'.matchAll(pattern)].map((match) => match[1])).toEqual([
      'int x;',
    ]);
    expect([...'```cc\nx\n```'.matchAll(codeFencePattern(['c+']))]).toEqual([]);
  });
});
