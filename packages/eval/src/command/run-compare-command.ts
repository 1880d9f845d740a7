import { readFile, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { RlmError } from '@rlm/protocol';
import { z } from 'zod';
import { compareRuns, renderComparison } from '../report/compare-runs.js';
import { describeRunDifferences } from '../report/run-differences.js';
import { type EvalSystem, evalSystemSchema } from '../runner/eval-system.js';
import type { ResultRow } from '../runner/result-row.js';
import { RESULTS_FILE, readResultRows } from '../runner/results-file.js';
import { RUN_MANIFEST_FILE } from '../runner/run-manifest.js';
import type { EvalCommandIo } from './run-eval-command.js';

export interface CompareCommandOptions {
  /** The first run: its output directory or its results file (relative to `cwd`). */
  a: string;
  /** The second run. */
  b: string;
  /** Print the comparison as JSON instead of Markdown. @default false */
  json?: boolean;
}

/**
 * What `rlm eval compare A B` does: per-system accuracy and cost deltas between two runs, and
 * the tasks that flipped, on stdout. Runs of different benchmarks, seeds, task sets or sizes are
 * still compared, with a warning naming what differs on stderr and in the comparison itself.
 *
 * @throws RlmError `eval.invalid_results` for a run without rows or a corrupt results file
 */
export async function runCompareCommand(
  { a, b, json = false }: CompareCommandOptions,
  io: Pick<EvalCommandIo, 'stdout' | 'cwd'> & Partial<Pick<EvalCommandIo, 'stderr'>>,
): Promise<void> {
  const runA = await readRun(resolve(io.cwd, a));
  const runB = await readRun(resolve(io.cwd, b));
  const comparison = compareRuns(runA.rows, runB.rows, {
    systemsA: runA.systems,
    systemsB: runB.systems,
  });
  const warning = describeRunDifferences(comparison.differences, { labelA: a, labelB: b });
  if (warning !== undefined) io.stderr?.write(`Warning: ${warning}\n`);
  io.stdout.write(
    json
      ? `${JSON.stringify(comparison, null, 2)}\n`
      : renderComparison(comparison, { labelA: a, labelB: b }),
  );
}

/** Rows of a run given as its directory or its results file, and the systems its `run.json` names. */
async function readRun(path: string): Promise<{ rows: ResultRow[]; systems: EvalSystem[] }> {
  const file =
    (await stat(path).catch(() => undefined))?.isDirectory() === true
      ? join(path, RESULTS_FILE)
      : path;
  const rows = await readResultRows(file);
  if (rows.length === 0) {
    throw new RlmError({
      code: 'eval.invalid_results',
      message: `No result rows in ${file}`,
      details: {
        path: file,
        line: undefined,
        issues: ['no rows (wrong directory, or the run has not finished an attempt)'],
      },
    });
  }
  return { rows, systems: await readSystems(join(dirname(file), RUN_MANIFEST_FILE)) };
}

/**
 * The systems of a run's manifest; none when it is missing or not a manifest (a results file
 * copied on its own still compares, only without setting changes).
 */
async function readSystems(path: string): Promise<EvalSystem[]> {
  try {
    const manifest = manifestSystemsSchema.safeParse(JSON.parse(await readFile(path, 'utf8')));
    return manifest.success ? manifest.data.systems : [];
  } catch {
    return [];
  }
}

const manifestSystemsSchema = z.object({ systems: z.array(evalSystemSchema) });
