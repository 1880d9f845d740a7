import { describe, expect, it } from 'vitest';
import { formatDuration, formatProgress } from './eval-progress.js';

describe('formatProgress', () => {
  it('shows the bar, counts, ETA, running accuracy and cost', () => {
    const line = formatProgress({
      total: 40,
      completed: 10,
      resumed: 0,
      running: 2,
      passed: 7,
      accuracy: 0.7,
      costUsd: 0.01234,
      elapsedMs: 30_000,
      etaMs: 90_000,
    });
    expect(line).toBe('[######------------------]  10/40  25%  ETA 1m30s  acc 70.0%  $0.0123');
    expect(
      formatProgress({
        total: 0,
        completed: 0,
        resumed: 0,
        running: 0,
        passed: 0,
        accuracy: 0,
        costUsd: 0,
        elapsedMs: 0,
        etaMs: null,
      }),
    ).toContain('ETA --');
  });

  it('formats durations from milliseconds to hours', () => {
    expect([850, 42_000, 185_000, 3_720_000].map(formatDuration)).toEqual([
      '850ms',
      '42s',
      '3m05s',
      '1h02m',
    ]);
  });
});
