import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { truncateOutput, truncationMarker } from './truncate-output.js';

describe('truncateOutput', () => {
  it('returns text within the cap unchanged', () => {
    expect(truncateOutput('abc', 3)).toBe('abc');
  });

  it('keeps the first characters and marks how many were cut', () => {
    expect(truncateOutput('abcdef', 4)).toBe(`abcd${truncationMarker(2)}`);
    expect(truncationMarker(2)).toBe('… + [2 chars...]');
  });

  it('keeps the marker and never exceeds the cap plus the marker', () => {
    const text = fc.string({ unit: fc.constantFrom('a', '\n', ' ', '…', '`'), maxLength: 200 });
    fc.assert(
      fc.property(text, fc.nat({ max: 250 }), (input, cap) => {
        const output = truncateOutput(input, cap);
        if (input.length <= cap) {
          expect(output).toBe(input);
          return;
        }
        const marker = truncationMarker(input.length - cap);
        expect(output.endsWith(marker)).toBe(true);
        expect(output.length).toBeLessThanOrEqual(cap + marker.length);
        expect(input.startsWith(output.slice(0, cap))).toBe(true);
      }),
    );
  });
});
