import { describe, expect, it } from 'vitest';
import {
  isSharedText,
  readSharedText,
  SHARED_TEXT_MIN_CHARS,
  toSharedText,
} from './shared-text.js';

describe('toSharedText', () => {
  it('leaves strings shorter than the threshold as they are', () => {
    expect(toSharedText('x'.repeat(SHARED_TEXT_MIN_CHARS - 1))).toBeUndefined();
    expect(toSharedText('x'.repeat(SHARED_TEXT_MIN_CHARS))).toBeDefined();
  });

  it('round-trips ASCII and non-ASCII text (accents, CJK, astral characters) exactly', () => {
    for (const text of ['plain ascii text\n', 'naïve café 漢字 😀 end\n']) {
      const shared = toSharedText(text, 1);
      expect(shared).toBeDefined();
      if (shared === undefined) continue;
      expect(shared.length).toBe(text.length);
      expect(shared.bytes.byteLength).toBe(Buffer.byteLength(text, 'utf8'));
      expect(readSharedText(shared)).toBe(text);
    }
  });

  it('leaves text UTF-8 cannot carry, or QuickJS would cut, to the JSON path', () => {
    expect(toSharedText('a lone \uD800 surrogate', 1)).toBeUndefined();
    expect(toSharedText('a trailing \uDC00 one', 1)).toBeUndefined();
    expect(toSharedText('a NUL \u0000 inside', 1)).toBeUndefined();
  });
});

describe('isSharedText', () => {
  it('tells shared text from any JSON value, even one shaped like it', () => {
    expect(isSharedText(toSharedText('text', 1))).toBe(true);
    expect(isSharedText({ kind: 'shared-text', bytes: 'not shared', length: 10 })).toBe(false);
    expect(isSharedText('text')).toBe(false);
    expect(isSharedText(null)).toBe(false);
  });
});
