import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromCodeUnits, toCodeUnits } from './code-units.js';

/** Any code units, unpaired surrogates included (cheaper to generate than code points). */
const codeUnitString = fc
  .array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 200 })
  .map((codes) => String.fromCharCode(...codes));

describe('code units', () => {
  it('round-trip any string, unpaired surrogates included', () => {
    fc.assert(
      fc.property(codeUnitString, (text) => {
        expect(fromCodeUnits(toCodeUnits(text))).toBe(text);
      }),
    );
  });

  it('round-trip a string longer than many chunks', () => {
    const text = `${'a\ud800\u2028'.repeat(100_000)}\udfff`;
    const back = fromCodeUnits(toCodeUnits(text));
    expect(back.length).toBe(text.length);
    expect(back === text).toBe(true);
  });
});
