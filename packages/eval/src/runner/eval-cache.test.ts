import { describe, expect, it } from 'vitest';
import { generateBenchmark } from '../generators/generate-benchmark.js';
import { renderMarkdownReport } from '../report/render-markdown-report.js';
import { summarizeRows } from '../report/summarize-rows.js';
import { createModelResolver } from './model-resolver.js';
import { runEval } from './run-eval.js';

/** Two attempts of a chunk-and-aggregate RLM on one task: the second asks the same sub-calls. */
async function twoAttempts(cache: boolean) {
  const resolveModel = createModelResolver();
  try {
    return await runEval({
      tasks: generateBenchmark('aggregate', { sizes: [20_000], seed: 5 }),
      systems: [{ name: 'rlm', kind: 'rlm', model: 'testkit:chunk-and-aggregate' }],
      attempts: 2,
      resolveModel,
      ...(cache ? { cache: { settings: { store: 'memory' } } } : {}),
    });
  } finally {
    await resolveModel.close();
  }
}

describe('an eval with the sub-call cache', () => {
  it('answers the second attempt’s repeated sub-calls from the cache every attempt shares, and reports them', async () => {
    const run = await twoAttempts(true);
    const [first, second] = [...run.rows].sort((a, b) => a.attempt - b.attempt);
    expect(first?.cachedCalls).toBeUndefined();
    expect(second?.cachedCalls).toBeGreaterThan(0);
    expect(second?.passed).toBe(first?.passed);
    const summary = summarizeRows(run.rows);
    expect(summary.systems[0]?.cachedCalls).toBe(second?.cachedCalls);
    const report = renderMarkdownReport(summary);
    expect(report).toContain('## Sub-call cache');
    expect(report).toMatch(new RegExp(`\\| rlm \\| ${second?.cachedCalls} \\| \\$`));
  });

  it('pays for every attempt without it, and says nothing of a cache in the report', async () => {
    const run = await twoAttempts(false);
    expect(run.rows.every((row) => row.cachedCalls === undefined)).toBe(true);
    expect(renderMarkdownReport(summarizeRows(run.rows))).not.toContain('Sub-call cache');
  });
});
