import { describe, expect, it } from 'vitest';
import { passAtK, percentile, wilsonInterval } from './statistics.js';

describe('wilsonInterval', () => {
  it('matches textbook values and stays inside [0, 1] at the extremes', () => {
    const { low, high } = wilsonInterval({ successes: 8, trials: 10 });
    expect(low).toBeCloseTo(0.4902, 3);
    expect(high).toBeCloseTo(0.9433, 3);
    expect(wilsonInterval({ successes: 0, trials: 5 }).low).toBe(0);
    expect(wilsonInterval({ successes: 5, trials: 5 }).high).toBeCloseTo(1, 10);
    expect(wilsonInterval({ successes: 5, trials: 5 }).low).toBeCloseTo(0.5655, 3);
    expect(wilsonInterval({ successes: 0, trials: 0 })).toEqual({ low: 0, high: 1 });
  });
});

describe('passAtK', () => {
  it('equals the fraction passed at k = 1 and the combinatorial formula above', () => {
    expect(passAtK({ n: 4, c: 1, k: 1 })).toBeCloseTo(0.25);
    // 1 - C(2,2)/C(4,2) = 1 - 1/6
    expect(passAtK({ n: 4, c: 2, k: 2 })).toBeCloseTo(5 / 6);
    expect(passAtK({ n: 3, c: 0, k: 3 })).toBe(0);
    expect(passAtK({ n: 3, c: 1, k: 3 })).toBe(1);
    expect(() => passAtK({ n: 1, c: 1, k: 2 })).toThrow(RangeError);
  });
});

describe('percentile', () => {
  it('uses the nearest rank', () => {
    expect(percentile([5, 1, 3, 2, 4], 0.5)).toBe(3);
    expect(
      percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20], 0.95),
    ).toBe(19);
    expect(percentile([], 0.5)).toBe(0);
    expect(percentile([7], 0.95)).toBe(7);
  });
});
