import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { commonPrefixLength, commonSuffixLength, type TextAt } from './common-run.js';

function naivePrefix(a: TextAt, b: TextAt, limit: number) {
  let length = 0;
  while (length < limit && a.text[a.at + length] === b.text[b.at + length]) length++;
  return length;
}

function naiveSuffix(a: TextAt, b: TextAt, limit: number) {
  let length = 0;
  while (length < limit && a.text[a.at - length - 1] === b.text[b.at - length - 1]) length++;
  return length;
}

describe('commonPrefixLength and commonSuffixLength', () => {
  const base = 'abcdefghij'.repeat(300);

  it('find a difference inside a chunk, at a chunk boundary and past the end', () => {
    for (const at of [0, 1, 511, 512, 513, 1_024, 2_999]) {
      const changed = `${base.slice(0, at)}#${base.slice(at + 1)}`;
      const end = base.length;
      expect(commonPrefixLength({ text: base, at: 0 }, { text: changed, at: 0 }, end)).toBe(at);
      expect(commonSuffixLength({ text: base, at: end }, { text: changed, at: end }, end)).toBe(
        end - at - 1,
      );
    }
    expect(commonPrefixLength({ text: base, at: 0 }, { text: base, at: 0 }, base.length)).toBe(
      base.length,
    );
    expect(commonPrefixLength({ text: base, at: 10 }, { text: base, at: 0 }, 700)).toBe(700);
  });

  it('agree with a character-by-character comparison', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'b'), maxLength: 1_500 });
    fc.assert(
      fc.property(
        fc.tuple(text, text),
        fc.tuple(fc.nat(), fc.nat()),
        fc.nat(),
        ([a, b], [i, j], limit) => {
          const aStart = a.length === 0 ? 0 : i % a.length;
          const bStart = b.length === 0 ? 0 : j % b.length;
          const forward = Math.min(limit % 1_600, a.length - aStart, b.length - bStart);
          const from = [
            { text: a, at: aStart },
            { text: b, at: bStart },
          ] as const;
          expect(commonPrefixLength(...from, forward)).toBe(naivePrefix(...from, forward));
          const to = [
            { text: a, at: a.length - aStart },
            { text: b, at: b.length - bStart },
          ] as const;
          const back = Math.min(limit % 1_600, to[0].at, to[1].at);
          expect(commonSuffixLength(...to, back)).toBe(naiveSuffix(...to, back));
        },
      ),
    );
  });
});
