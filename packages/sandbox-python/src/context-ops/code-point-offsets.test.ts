import { CodePointOffsets } from '@rlm/sandbox/context-ops';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

/** Text from characters that are one or two UTF-16 units, and lone surrogates. */
const text = fc
  .array(fc.constantFrom('a', '\n', 'é', '🙂', '𝄞', '\uD800', '\uDC00'), { maxLength: 40 })
  .map((parts) => parts.join(''));

describe('CodePointOffsets', () => {
  it('converts every UTF-16 offset at a character boundary to the index Python uses, and back', () => {
    fc.assert(
      fc.property(text, (value) => {
        const offsets = new CodePointOffsets(value);
        const characters = [...value];
        let unit = 0;
        characters.forEach((character, index) => {
          expect(offsets.toCodePoints(unit)).toBe(index);
          expect(offsets.toUtf16(index)).toBe(unit);
          unit += character.length;
        });
        expect(offsets.toCodePoints(value.length)).toBe(characters.length);
        expect(offsets.toUtf16(characters.length)).toBe(value.length);
      }),
    );
  });

  it('is the identity for text without surrogate pairs', () => {
    expect(new CodePointOffsets('plain é text').identity).toBe(true);
    expect(new CodePointOffsets('x🙂').identity).toBe(false);
  });
});
