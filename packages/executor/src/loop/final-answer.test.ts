import { parseFinalMarker } from '@rlm/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { markerIn } from './final-answer.js';

/** Pieces that make the parser's cases: markers, fences, line breaks, look-alikes. */
const piece = fc.constantFrom(
  'FINAL(',
  'FINAL_VAR(',
  'FINAL',
  'FINA',
  'INAL(',
  'final(',
  ')',
  'answer',
  'x = 1 + 1; print(x)',
  '```repl\n',
  '```',
  '\n```\n',
  '\n',
  '\r\n',
  '\r',
  ' ',
  '\t',
  '\u2028',
  '"',
  "'",
  'name',
  'ＦＩＮＡＬ(',
);
const response = fc.oneof(
  fc.array(piece, { maxLength: 24 }).map((parts) => parts.join('')),
  fc.string({ maxLength: 40 }),
);

describe('markerIn', () => {
  it('finds exactly what parseFinalMarker finds, for any response', () => {
    fc.assert(
      fc.property(response, (text) => {
        expect(markerIn(text)).toEqual(parseFinalMarker(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('still reads markers in text, and none in fenced code', () => {
    expect(markerIn('Done.\nFINAL(42)')).toEqual({ kind: 'final', value: '42' });
    expect(markerIn('FINAL_VAR(answer)')).toEqual({ kind: 'final_var', varName: 'answer' });
    expect(markerIn('```repl\nFINAL(42)\n```')).toBeNull();
    expect(markerIn('```repl\nx = 1 + 1; print(x)\n```')).toBeNull();
  });
});
