import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { literalPattern } from './literal-pattern.js';
import { countMatches, findAll, globalPattern, grep, lineStarts } from './scan-operations.js';

const UNCAPPED = { maxItems: Number.MAX_SAFE_INTEGER, maxChars: Number.MAX_SAFE_INTEGER };

describe('literalPattern', () => {
  it('reads plain characters and backslash-escaped syntax characters as the text they find', () => {
    expect(literalPattern('NEEDLE-4242', 'g')).toEqual({ literal: 'NEEDLE-4242' });
    expect(literalPattern('a\\.b\\(c\\)\\[\\]\\{\\}\\|\\*\\+\\?\\^\\$\\\\\\/', 'gm')).toEqual({
      literal: 'a.b(c)[]{}|*+?^$\\/',
    });
    expect(literalPattern('user=42 \\- ok', 'g')).toEqual({ literal: 'user=42 - ok' });
    expect(literalPattern('😀 é', 'gs')).toEqual({ literal: '😀 é' });
  });

  it('refuses anything a regex could match other than its own text, or might backtrack on', () => {
    for (const source of ['', 'a+', 'a*', 'a?', 'a{2}', 'a|b', '(ab)', '[ab]', '.', '^a', 'a$']) {
      expect(literalPattern(source, 'g')).toBeUndefined();
    }
    for (const source of ['\\d', '\\w', '\\s', '\\b', '\\n', '\\x41', '\\u0041', '\\1', '\\k<a>']) {
      expect(literalPattern(source, 'g')).toBeUndefined();
    }
    expect(literalPattern('needle', 'gi')).toBeUndefined();
    expect(literalPattern('needle', 'gy')).toBeUndefined();
    // Unicode mode never matches half of a surrogate pair; indexOf would.
    expect(literalPattern('\ud83d', 'gu')).toBeUndefined();
    expect(literalPattern('😀', 'gv')).toBeUndefined();
  });

  it('finds exactly what the regex of its source finds (count, find_all, grep)', () => {
    const text = fc.string({
      unit: fc.constantFrom('a', 'b', 'ab', '.', '(', '\n', '\r\n', '😀', '\ud83d', '-', ' '),
      maxLength: 120,
    });
    const source = fc.constantFrom(
      'a',
      'ab',
      'aa',
      'a\\.',
      '\\(a',
      'b\n',
      '😀',
      '\ud83d',
      '-',
      ' a',
    );
    const flags = fc.constantFrom('', 'm', 's', 'u', 'd');
    fc.assert(
      fc.property(text, source, flags, (haystack, pattern, flag) => {
        const literal = literalPattern(pattern, `${flag}g`);
        if (literal === undefined) return;
        const regex = () => globalPattern(pattern, flag);
        expect(countMatches(haystack, literal)).toBe(countMatches(haystack, regex()));
        expect(findAll(haystack, literal, UNCAPPED)).toEqual(findAll(haystack, regex(), UNCAPPED));
        const starts = lineStarts(haystack);
        const options = { ...UNCAPPED, context: 1, starts };
        expect(grep(haystack, literal, options)).toEqual(grep(haystack, regex(), options));
      }),
      { numRuns: 400 },
    );
  });
});
