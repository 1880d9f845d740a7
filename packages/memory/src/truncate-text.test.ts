import { describe, expect, it } from 'vitest';
import { truncateText } from './truncate-text.js';

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
    const text = 'x😀y🎉z'.repeat(10);
    for (let limit = 1; limit <= text.length; limit++) {
      const cut = truncateText(text, limit);
      expect(cut.isWellFormed()).toBe(true);
      expect(cut.length).toBeLessThanOrEqual(limit);
      expect(cut.length).toBeGreaterThanOrEqual(limit - 1);
    }
  });
});
