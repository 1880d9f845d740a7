import vm from 'node:vm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HeldTexts } from './held-scan.js';
import type { ScanOperation } from './scan-messages.js';
import { toStreamedText } from './shared-text.js';

const count = (source: string): ScanOperation => ({ op: 'count', source, flags: 'g' });

/** Runs of the `vm` script held scans run under a watchdog with. */
const watchdogRuns = () => vi.spyOn(vm.Script.prototype, 'runInContext');

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a held scan that cannot backtrack', () => {
  it('runs without a vm watchdog: a literal count, lines and grep once the line index is built', () => {
    const text = `${'hay line\n'.repeat(200_000)}the NEEDLE-4242 is here\n`;
    const shared = toStreamedText(text);
    if (shared === undefined) throw new Error('the text should be long enough to hold');
    const held = new HeldTexts({ timeoutMs: 10_000 });
    const runs = watchdogRuns();
    expect(held.scan(shared, count('NEEDLE-4242'))).toEqual({ value: 1 });
    expect(held.scan(shared, count('NEEDLE\\-4242'))).toEqual({ value: 1 });
    expect(runs).not.toHaveBeenCalled();
    // The first grep builds the line index under the watchdog; later ones need none.
    const grep: ScanOperation = {
      op: 'grep',
      source: 'NEEDLE',
      flags: 'g',
      context: 0,
      maxItems: 10,
      maxChars: 1_000,
    };
    const first = held.scan(shared, grep);
    expect(runs).toHaveBeenCalledTimes(1);
    expect(held.scan(shared, grep)).toEqual(first);
    expect(held.scan(shared, { op: 'lines', start: 200_001, end: 200_001, maxChars: 100 })).toEqual(
      { value: 'the NEEDLE-4242 is here' },
    );
    expect(runs).toHaveBeenCalledTimes(1);
    // A pattern that may backtrack still runs under it.
    expect(held.scan(shared, count('NEEDLE-\\d+'))).toEqual({ value: 1 });
    expect(runs).toHaveBeenCalledTimes(2);
  });

  it('still stops at its budget, checking the clock between matches', () => {
    // Millions of matches: far more than a 1 ms budget can count.
    const shared = toStreamedText('a'.repeat(8_000_000));
    if (shared === undefined) throw new Error('the text should be long enough to hold');
    const runs = watchdogRuns();
    expect(new HeldTexts({ timeoutMs: 1 }).scan(shared, count('a'))).toBeUndefined();
    expect(runs).not.toHaveBeenCalled();
  });
});
