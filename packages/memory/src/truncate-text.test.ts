import { describe, expect, it } from 'vitest';
import { truncateText } from './truncate-text.js';

/** True when the string holds no unpaired surrogate (what String#isWellFormed checks on ES2024). */
function isWellFormed(text: string): boolean {
  return !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
}

describe('truncateText', () => {
  it('returns text at or under the limit unchanged', () => {
    expect(truncateText('abc', 3)).toBe('abc');
    expect(truncateText('', 3)).toBe('');
  });

  it('cuts to the limit in UTF-16 code units', () => {
    expect(truncateText('abcdef', 4)).toBe('abcd');
  });

  it('drops a whole surrogate pair rather than half of it', () => {
    expect(truncateText('ab😀cd', 3)).toBe('ab');
    expect(truncateText('ab😀cd', 4)).toBe('ab😀');
  });

  it('always yields well-formed strings for every cut of mixed text', () => {
    expect(isWellFormed('a\uD83D')).toBe(false);
    const text = 'x😀y🎉z'.repeat(10);
    for (let limit = 1; limit <= text.length; limit++) {
      const cut = truncateText(text, limit);
      expect(isWellFormed(cut)).toBe(true);
      expect(cut.length).toBeLessThanOrEqual(limit);
      expect(cut.length).toBeGreaterThanOrEqual(limit - 1);
    }
  });
});
