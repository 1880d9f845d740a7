import { describe, expect, it } from 'vitest';
import type { EvalProgress } from '../runner/eval-progress.js';
import { createProgressWriter } from './progress-writer.js';

const snapshot = (completed: number, total = 1_000): EvalProgress => ({
  total,
  completed,
  resumed: 0,
  running: 1,
  passed: completed,
  accuracy: 1,
  costUsd: 0,
  elapsedMs: 0,
  etaMs: null,
});

function writer(mode: 'tree' | 'plain' | 'none') {
  const written: string[] = [];
  let clock = 0;
  const progress = createProgressWriter(
    { write: (text: string) => written.push(text) },
    {
      mode,
      now: () => clock,
    },
  );
  return { progress, written, tick: (ms: number) => (clock += ms) };
}

describe('createProgressWriter', () => {
  it('writes a plain line at most once a second, and always the last one', () => {
    const { progress, written, tick } = writer('plain');
    for (let completed = 0; completed <= 1_000; completed += 1) {
      progress.update(snapshot(completed));
      tick(10); // 1,000 attempts in 10 seconds
    }
    progress.stop();
    expect(written.length).toBeGreaterThanOrEqual(10);
    expect(written.length).toBeLessThanOrEqual(12);
    expect(written.every((line) => line.endsWith('\n') && !line.includes('\r'))).toBe(true);
    expect(written.at(-1)).toContain(' 1000/1000 ');
  });

  it('redraws one line in tree mode and ends it on stop; none writes nothing', () => {
    const tree = writer('tree');
    tree.progress.update(snapshot(1, 2));
    tree.progress.update(snapshot(2, 2));
    tree.progress.stop();
    expect(tree.written.map((text) => text.slice(0, 1))).toEqual(['\r', '\r', '\n']);
    const none = writer('none');
    none.progress.update(snapshot(2, 2));
    none.progress.stop();
    expect(none.written).toEqual([]);
  });
});
