import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { commonPrefixLength, commonSuffixLength } from './common-run.js';

function naivePrefix(a: string, aStart: number, b: string, bStart: number, limit: number) {
  let length = 0;
  while (length < limit && a[aStart + length] === b[bStart + length]) length++;
  return length;
}

function naiveSuffix(a: string, aEnd: number, b: string, bEnd: number, limit: number) {
  let length = 0;
  while (length < limit && a[aEnd - length - 1] === b[bEnd - length - 1]) length++;
  return length;
}

describe('commonPrefixLength and commonSuffixLength', () => {
  const base = 'abcdefghij'.repeat(300);

  it('find a difference inside a chunk, at a chunk boundary and past the end', () => {
    for (const at of [0, 1, 511, 512, 513, 1_024, 2_999]) {
      const changed = `${base.slice(0, at)}#${base.slice(at + 1)}`;
      expect(commonPrefixLength(base, 0, changed, 0, base.length)).toBe(at);
      expect(commonSuffixLength(base, base.length, changed, base.length, base.length)).toBe(
        base.length - at - 1,
      );
    }
    expect(commonPrefixLength(base, 0, base, 0, base.length)).toBe(base.length);
    expect(commonPrefixLength(base, 10, base, 0, 700)).toBe(700);
  });

  it('agree with a character-by-character comparison', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'b'), maxLength: 1_500 });
    fc.assert(
      fc.property(text, text, fc.nat(), fc.nat(), fc.nat(), (a, b, i, j, limit) => {
        const aStart = a.length === 0 ? 0 : i % a.length;
        const bStart = b.length === 0 ? 0 : j % b.length;
        const max = Math.min(limit % 1_600, a.length - aStart, b.length - bStart);
        expect(commonPrefixLength(a, aStart, b, bStart, max)).toBe(
          naivePrefix(a, aStart, b, bStart, max),
        );
        const aEnd = a.length - aStart;
        const bEnd = b.length - bStart;
        const back = Math.min(limit % 1_600, aEnd, bEnd);
        expect(commonSuffixLength(a, aEnd, b, bEnd, back)).toBe(
          naiveSuffix(a, aEnd, b, bEnd, back),
        );
      }),
    );
  });

  it('find long equal runs a chunk at a time', () => {
    const long = `${'x'.repeat(5_000)}y`;
    const other = `${'x'.repeat(5_000)}z`;
    expect(commonPrefixLength(long, 0, other, 0, long.length)).toBe(5_000);
    expect(
      commonSuffixLength(`y${long.slice(0, 5_000)}`, 5_001, `z${'x'.repeat(5_000)}`, 5_001, 5_001),
    ).toBe(5_000);
  });
});
