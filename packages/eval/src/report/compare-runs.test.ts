import { describe, expect, it } from 'vitest';
import type { ResultRow } from '../runner/result-row.js';
import { compareRuns, renderComparison } from './compare-runs.js';

function row(
  taskId: string,
  system: string,
  { passed, attempt = 0, costUsd = 0.01 }: { passed: boolean; attempt?: number; costUsd?: number },
): ResultRow {
  return {
    taskId,
    system,
    attempt,
    benchmark: 'sniah',
    contextChars: 8_000,
    answer: passed ? 'x' : 'y',
    expected: 'x',
    score: passed ? 1 : 0,
    passed,
    status: 'completed',
    costUsd,
    inputTokens: 10,
    outputTokens: 1,
    latencyMs: 5,
    iterations: 1,
    trajectoryPath: null,
    promptVersion: null,
    truncatedChars: 0,
    model: 'm',
    error: null,
    finishedAt: '2026-01-01T00:00:00.000Z',
  };
}

describe('compareRuns', () => {
  const before = [
    row('t1', 'rlm', { passed: true }),
    row('t2', 'rlm', { passed: false }),
    row('t3', 'rlm', { passed: true }),
    row('t1', 'base', { passed: true }),
    row('t1', 'old', { passed: true }),
  ];
  const after = [
    row('t1', 'rlm', { passed: false, costUsd: 0.03 }),
    row('t2', 'rlm', { passed: false, costUsd: 0.03 }),
    row('t2', 'rlm', { passed: true, attempt: 1, costUsd: 0.03 }),
    row('t3', 'rlm', { passed: true, costUsd: 0.03 }),
    row('t1', 'base', { passed: true }),
    row('t9', 'base', { passed: false }),
    row('t1', 'new', { passed: true }),
  ];

  it('lists the tasks that flipped per system, counting a task passed when any attempt passed', () => {
    expect(compareRuns(before, after).flipped).toEqual([
      { taskId: 't1', system: 'rlm', direction: 'broken' },
      { taskId: 't2', system: 'rlm', direction: 'fixed' },
    ]);
  });

  it('gives accuracy and cost deltas for systems in both runs and names the rest', () => {
    const comparison = compareRuns(before, after);
    const rlm = comparison.systems.find((delta) => delta.system === 'rlm');
    expect(rlm?.accuracyA).toBeCloseTo(2 / 3);
    expect(rlm?.accuracyB).toBeCloseTo(2 / 4);
    expect(rlm?.accuracyDelta).toBeCloseTo(2 / 4 - 2 / 3);
    expect(rlm?.costPerTaskDelta).toBeCloseTo(0.02);
    expect(comparison.onlyInA).toEqual(['old']);
    expect(comparison.onlyInB).toEqual(['new']);
  });

  it('renders deltas with signs and the flips', () => {
    const text = renderComparison(compareRuns(before, after), { labelA: 'v1', labelB: 'v2' });
    expect(text).toContain('| rlm | 66.7% | 50.0% | −16.7% |');
    expect(text).toContain('❌ broken: rlm · t1');
    expect(text).toContain('✅ fixed: rlm · t2');
    expect(renderComparison(compareRuns(before, before))).toContain('None.');
  });

  it('lists the settings of a system that changed between runs, such as its drivers', () => {
    const solver = (drivers: string[]) => ({
      name: 'rlm',
      kind: 'rlm' as const,
      model: 'm',
      promptMode: 'solver' as const,
      repl: 'javascript' as const,
      drivers,
    });
    const comparison = compareRuns(before, after, {
      systemsA: [solver([])],
      systemsB: [solver(['verify-before-final'])],
    });
    expect(comparison.systemChanges).toEqual([
      { system: 'rlm', setting: 'drivers', a: 'none', b: 'verify-before-final' },
    ]);
    expect(renderComparison(comparison)).toContain(
      '## Setting changes\n\n- rlm: drivers none → verify-before-final\n',
    );
    expect(compareRuns(before, after).systemChanges).toEqual([]);
  });

  it('names what differs between runs of different benchmarks, seeds and sizes, and warns in the report', () => {
    const sniah = [row('sniah-8k-s1-0', 'rlm', { passed: true })];
    const aggregate = [
      {
        ...row('aggregate-16k-s2-0', 'rlm', { passed: true }),
        benchmark: 'aggregate',
        contextChars: 16_000,
      },
    ];
    const comparison = compareRuns(sniah, aggregate);
    expect(comparison.differences).toEqual([
      { field: 'benchmark', a: 'sniah', b: 'aggregate' },
      { field: 'seed', a: '1', b: '2' },
      {
        field: 'tasks',
        a: '1 task (0 shared)',
        b: '1 task (0 shared)',
      },
      { field: 'sizes', a: '8k', b: '16k' },
    ]);
    const text = renderComparison(comparison, { labelA: 'runs/a', labelB: 'runs/b' });
    expect(text).toContain(
      '> **Warning:** The runs are not the same experiment (benchmark sniah in runs/a, aggregate in runs/b; seed 1 in runs/a, 2 in runs/b;',
    );
    expect(compareRuns(before, before).differences).toEqual([]);
    expect(renderComparison(compareRuns(before, before))).not.toContain('Warning');
  });
});
