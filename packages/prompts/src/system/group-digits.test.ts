import { describe, expect, it } from 'vitest';
import { groupDigits } from './group-digits.js';

describe('groupDigits', () => {
  it('writes whole numbers as en-US toLocaleString does', () => {
    for (const value of [0, 7, 999, 1000, 20_000, 65_536, 1_000_000, 123_456_789, -4321]) {
      expect(groupDigits(value)).toBe(value.toLocaleString('en-US'));
    }
  });

  it('refuses a number that is not a safe integer, naming it', () => {
    expect(() => groupDigits(1.5)).toThrow(/safe integer, got 1.5/);
  });
});
