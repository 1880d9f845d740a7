import {
  CodePointOffsets,
  chunkBounds,
  countMatches,
  findAll,
  globalPattern,
  grep,
  lineRange,
  lineStarts,
} from '@rlm/sandbox/context-ops';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

const caps = { maxItems: 1_000, maxChars: 100_000 };
const risky = fc
  .array(fc.constantFrom('a', 'b', '\n', '\r\n', ' ', '🙂', 'é'), { maxLength: 60 })
  .map((parts) => parts.join(''));

describe('scan operations', () => {
  it('find_all gives Python indices that slice the match out of the code points', () => {
    fc.assert(
      fc.property(risky, (text) => {
        const result = findAll(text, globalPattern('a+|🙂', ''), {
          ...caps,
          offsets: new CodePointOffsets(text),
        });
        const points = [...text];
        for (const match of result.matches) {
          expect(points.slice(match.index, match.index + [...match.match].length).join('')).toBe(
            match.match,
          );
        }
        expect(result.total).toBe(countMatches(text, globalPattern('a+|🙂', '')));
      }),
    );
  });

  it('chunks cover the text in Python characters with the asked overlap', () => {
    fc.assert(
      fc.property(risky, fc.integer({ min: 1, max: 9 }), (text, size) => {
        const overlap = size > 1 ? 1 : 0;
        const chunks = chunkBounds(text, {
          size,
          overlap,
          maxItems: 1_000,
          starts: lineStarts(text),
          offsets: new CodePointOffsets(text),
        });
        const length = [...text].length;
        expect(chunks[0]?.start).toBe(0);
        expect(chunks.at(-1)?.end).toBe(length);
        chunks.slice(1).forEach((chunk, i) => {
          expect(chunk.start).toBe((chunks[i]?.end ?? 0) - overlap);
        });
      }),
    );
  });

  it('grep reports each matching line once, with neighbours and \\r\\n stripped', () => {
    const text = 'one a\r\ntwo\nthree a a\nfour';
    const result = grep(text, globalPattern('a', ''), {
      ...caps,
      context: 1,
      starts: lineStarts(text),
    });
    expect(result).toEqual({
      matches: [
        { line: 1, text: 'one a', before: [], after: ['two'] },
        { line: 3, text: 'three a a', before: ['two'], after: ['four'] },
      ],
      total: 2,
    });
  });

  it('caps results and says how many were left out', () => {
    const text = 'x\n'.repeat(10);
    const result = grep(text, globalPattern('x', ''), {
      maxItems: 3,
      maxChars: 100,
      context: 0,
      starts: lineStarts(text),
    });
    expect(result.matches).toHaveLength(3);
    expect(result.note).toContain('7 of 10 matching lines not shown');
  });

  it('lines returns the 1-based inclusive range, cut with a marker', () => {
    const text = 'a\nbb\nccc\n';
    expect(lineRange(text, { start: 2, end: 3, starts: lineStarts(text), maxChars: 100 })).toBe(
      'bb\nccc',
    );
    expect(lineRange(text, { start: 1, end: 3, starts: lineStarts(text), maxChars: 3 })).toBe(
      'a\nb… + [5 chars...]',
    );
  });
});
