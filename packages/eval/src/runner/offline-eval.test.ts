import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { generateBenchmark } from '../generators/generate-benchmark.js';
import { createModelResolver } from './model-resolver.js';
import type { ResultRow } from './result-row.js';
import { readResultRows } from './results-file.js';
import { runEval } from './run-eval.js';

/** A fresh temporary directory, removed when the test ends. */
async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

describe('an offline eval of two systems', () => {
  it('runs RLM and base end to end and writes a report whose numbers match the rows', async () => {
    const outDir = await tempDir('eval-e2e-');
    const tasks = [
      ...generateBenchmark('sniah', { sizes: [4_000, 60_000], count: 2, seed: 3 }),
      ...generateBenchmark('aggregate', { sizes: [4_000, 60_000], seed: 3 }),
    ];
    const run = await runEval({
      tasks,
      systems: [
        { name: 'rlm', kind: 'rlm', model: 'testkit:reference', maxIterations: 4 },
        {
          name: 'base',
          kind: 'base',
          model: 'testkit:reference',
          contextWindow: 8_000,
          maxOutputTokens: 500,
        },
      ],
      concurrency: 2,
      outDir,
      resolveModel: createModelResolver(),
    });
    expect(run.stoppedBy).toBeNull();

    const rows: ResultRow[] = await readResultRows(join(outDir, 'results.jsonl'));
    expect(rows).toHaveLength(12);
    const rlm = rows.filter((row) => row.system === 'rlm');
    const baseRows = rows.filter((row) => row.system === 'base');
    // The reference RLM reads everything; the base system loses what the window cut off.
    expect(
      rlm.every(
        (row) =>
          row.passed &&
          row.status === 'completed' &&
          row.trajectoryPath !== null &&
          row.promptVersion !== null,
      ),
    ).toBe(true);
    expect(
      baseRows.filter((row) => row.contextChars === 60_000).every((row) => row.truncatedChars > 0),
    ).toBe(true);
    expect(
      baseRows
        .filter((row) => row.contextChars === 4_000)
        .every((row) => row.truncatedChars === 0 && row.passed),
    ).toBe(true);

    const summary = JSON.parse(await readFile(join(outDir, 'summary.json'), 'utf8'));
    for (const [name, own] of [
      ['rlm', rlm],
      ['base', baseRows],
    ] as const) {
      const entry = summary.systems.find((system: { system: string }) => system.system === name);
      const passed = own.filter((row) => row.passed).length;
      const cost = own.reduce((sum, row) => sum + row.costUsd, 0);
      expect(entry.attempts).toBe(own.length);
      expect(entry.accuracy).toBeCloseTo(passed / own.length, 10);
      expect(entry.costUsd).toBeCloseTo(cost, 10);
      expect(entry.costPerTaskUsd).toBeCloseTo(cost / own.length, 10);
      expect(entry.statuses).toEqual({ completed: own.length });
      expect(entry.latencyP95Ms).toBe(
        Math.max(
          ...own
            .map((row) => row.latencyMs)
            .sort((a, b) => a - b)
            .slice(0, Math.ceil(0.95 * own.length)),
        ),
      );
      expect(cost).toBeGreaterThan(0);
    }

    const report = await readFile(join(outDir, 'report.md'), 'utf8');
    const baseAccuracy = `${((baseRows.filter((row) => row.passed).length / baseRows.length) * 100).toFixed(1)}%`;
    expect(report).toMatch(new RegExp(`\\| base \\| ${baseAccuracy.replace('.', '\\.')} \\(`));
    expect(report).toContain('| rlm | 100.0% (');
    expect(report).toContain('| 60k |');
    const manifest = JSON.parse(await readFile(join(outDir, 'run.json'), 'utf8'));
    expect(manifest.systems.map((system: { name: string }) => system.name)).toEqual([
      'rlm',
      'base',
    ]);
    expect(manifest.tasks).toHaveLength(6);
    expect(manifest.tasks[0]).toEqual({
      id: tasks[0]?.id,
      benchmark: 'sniah',
      size: 4_000,
      contextFile: null,
    });
    const chart = await readFile(join(outDir, 'accuracy.svg'), 'utf8');
    expect(chart.match(/<polyline /g)).toHaveLength(2);
    expect(chart).toContain('<svg xmlns="http://www.w3.org/2000/svg"');
  }, 120_000);
});
