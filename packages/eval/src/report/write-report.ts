import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EvalSystem } from '../runner/eval-system.js';
import type { ResultRow } from '../runner/result-row.js';
import { renderAccuracyChart } from './render-accuracy-chart.js';
import { renderMarkdownReport } from './render-markdown-report.js';
import { type EvalSummary, summarizeRows } from './summarize-rows.js';

/** File names of a report inside an eval's output directory. */
export const REPORT_FILES = {
  markdown: 'report.md',
  summary: 'summary.json',
  chart: 'accuracy.svg',
} as const;

/**
 * Writes `report.md` (with what each of `systems` was, when given), `summary.json` and
 * `accuracy.svg` for the rows; returns the summary.
 */
export async function writeReport(
  outDir: string,
  rows: readonly ResultRow[],
  { systems = [] }: { systems?: readonly EvalSystem[] } = {},
): Promise<EvalSummary> {
  const summary = summarizeRows(rows);
  await mkdir(outDir, { recursive: true });
  await writeFile(
    join(outDir, REPORT_FILES.summary),
    `${JSON.stringify(summary, null, 2)}\n`,
    'utf8',
  );
  await writeFile(
    join(outDir, REPORT_FILES.markdown),
    `${renderMarkdownReport(summary, { systems })}\n![Accuracy vs context length](${REPORT_FILES.chart})\n`,
    'utf8',
  );
  await writeFile(join(outDir, REPORT_FILES.chart), renderAccuracyChart(summary.bySize), 'utf8');
  return summary;
}
