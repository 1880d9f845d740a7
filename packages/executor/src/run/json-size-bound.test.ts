import { describe, expect, it } from 'vitest';
import { fitsAsJson } from './json-size-bound.js';

const samples: unknown[] = [
  null,
  true,
  -1.2345678901234567e-308,
  Number.MAX_VALUE,
  '',
  'plain',
  '\u0000\u001f"\\\n',
  '\ud800 lone surrogate',
  'é €',
  [],
  [undefined, null, 1, 'a'],
  { a: undefined, b: null },
  { 'key with "quotes"\n': ['x', { y: [1, 2, 3] }] },
  { type: 'block-end', stdout: '2\n', stderr: '', error: null, unawaitedCalls: {} },
  Object.assign(Object.create(null), { a: 'b' }),
];

describe('fitsAsJson', () => {
  it('never says a value fits when its JSON is longer than the limit', () => {
    for (const value of samples) {
      const length = JSON.stringify([value]).length - 2;
      for (let limit = 0; limit <= length + 200; limit++) {
        if (fitsAsJson(value, limit)) expect(length).toBeLessThanOrEqual(limit);
      }
    }
  });

  it('settles ordinary values far below the limit', () => {
    for (const value of samples) expect(fitsAsJson(value, 10_000)).toBe(true);
  });

  it('counts every code unit as its longest escape', () => {
    const control = '\u0001'.repeat(100);
    expect(JSON.stringify(control).length).toBe(602);
    expect(fitsAsJson(control, 602)).toBe(true);
    expect(fitsAsJson(control, 601)).toBe(false);
  });

  it('leaves what serializes by its own code to be measured exactly', () => {
    expect(fitsAsJson(new Date(0), 1_000)).toBe(false);
    expect(fitsAsJson({ toJSON: () => 'x' }, 1_000)).toBe(false);
    expect(fitsAsJson({ nested: new Map() }, 1_000)).toBe(false);
    expect(fitsAsJson(10n, 1_000)).toBe(false);
    expect(fitsAsJson({ f: () => 1 }, 1_000)).toBe(false);
  });

  it('gives up on a cycle instead of looping', () => {
    const cycle: { self?: unknown } = {};
    cycle.self = cycle;
    expect(fitsAsJson(cycle, 1_000_000)).toBe(false);
  });

  it('stops early on a value far over the limit', () => {
    const huge = Array.from({ length: 100_000 }, () => 'x'.repeat(100));
    expect(fitsAsJson(huge, 1_000)).toBe(false);
  });
});
