import { describe, expect, it } from 'vitest';
import type { ResultRow } from '../runner/result-row.js';
import { renderMarkdownReport } from './render-markdown-report.js';
import { summarizeRows } from './summarize-rows.js';

function row(overrides: Partial<ResultRow>): ResultRow {
  return {
    taskId: 't',
    system: 's',
    attempt: 0,
    benchmark: 'sniah',
    contextChars: 8_000,
    answer: 'x',
    expected: 'x',
    score: 1,
    passed: true,
    status: 'completed',
    costUsd: 0,
    inputTokens: 1,
    outputTokens: 1,
    latencyMs: 10,
    iterations: 1,
    trajectoryPath: null,
    promptVersion: null,
    truncatedChars: 0,
    model: 'm',
    error: null,
    finishedAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

describe('summarizeRows', () => {
  const rows = [
    row({ taskId: 'a', contextChars: 8_000, latencyMs: 100, costUsd: 0.5 }),
    row({
      taskId: 'b',
      contextChars: 8_100,
      latencyMs: 300,
      passed: false,
      score: 0.5,
      status: 'max_iterations',
      costUsd: 0.5,
    }),
    row({
      taskId: 'c',
      contextChars: 128_000,
      latencyMs: 200,
      passed: false,
      score: 0,
      status: 'error',
      truncatedChars: 5,
    }),
    row({ system: 'free', taskId: 'a' }),
  ];
  const summary = summarizeRows(rows);
  const paid = summary.systems[0];

  it('counts passes, partial scores, statuses, truncations and cost per system', () => {
    expect(paid).toMatchObject({
      system: 's',
      tasks: 3,
      attempts: 3,
      passed: 1,
      meanScore: 0.5,
      costUsd: 1,
      costPerCorrectUsd: 1,
      passedPerUsd: 1,
      statuses: { completed: 1, max_iterations: 1, error: 1 },
      truncated: 1,
      latencyP50Ms: 200,
      latencyP95Ms: 300,
    });
    expect(paid?.accuracy).toBeCloseTo(1 / 3);
    expect(summary.systems[1]?.passedPerUsd).toBeNull();
    expect(summary.systems[1]?.costPerCorrectUsd).toBe(0);
    // No answer was correct: there is no cost per correct answer.
    const failed = summarizeRows([row({ passed: false, costUsd: 0.2 })]);
    expect(failed.systems[0]?.costPerCorrectUsd).toBeNull();
  });

  it('groups nearby context sizes into one chart point', () => {
    expect(summary.bySize.filter((point) => point.system === 's')).toEqual([
      { system: 's', contextChars: 8_050, attempts: 2, accuracy: 0.5 },
      { system: 's', contextChars: 128_000, attempts: 1, accuracy: 0 },
    ]);
  });

  it('renders every system and size in the markdown report', () => {
    const text = renderMarkdownReport(summary);
    expect(text).toContain(
      '| s | 33.3% (6.1%–79.2%) | pass@1 33.3% | 0.500 | $0.3333 | $1.0000 | 1.0 | 200ms / 300ms | completed 1, max_iterations 1, error 1, truncated 1 |',
    );
    expect(text).toContain('| 128k | 0.0% (1) | – |');
  });
});

describe('renderMarkdownReport with nominal costs', () => {
  it('labels the costs of offline systems nominal and explains them once, real costs plainly', () => {
    const text = renderMarkdownReport(
      summarizeRows([
        row({ system: 'offline', costUsd: 0.02, costNominal: true }),
        row({ system: 'real', costUsd: 0.04 }),
      ]),
    );
    expect(text).toContain(
      '| offline | 100.0% (20.7%–100.0%) | pass@1 100.0% | 1.000 | $0.0200 nominal | $0.0200 nominal | 50.0 nominal |',
    );
    expect(text).toContain(
      '| real | 100.0% (20.7%–100.0%) | pass@1 100.0% | 1.000 | $0.0400 | $0.0400 | 25.0 |',
    );
    expect(text.split('Nominal costs:')).toHaveLength(2);
    expect(renderMarkdownReport(summarizeRows([row({ costUsd: 0.04 })]))).not.toContain('ominal');
  });
});
