import { join } from 'node:path';
import { type CallCacheStores, memoryCallCache } from '@rlm/executor';
import type { RunCacheInput } from '@rlm/protocol';
import { writeReport } from '../report/write-report.js';
import type { ScoreFunction } from '../scorers/score-answer.js';
import type { EvalTask } from '../task/eval-task.js';
import type { EvalProgress } from './eval-progress.js';
import type { EvalSystem, EvalSystemInput } from './eval-system.js';
import { createModelResolver, type ModelResolver } from './model-resolver.js';
import { checkCounts, parseSystems } from './parse-eval-options.js';
import { type ResultRow, rowKey } from './result-row.js';
import {
  appendResultRow,
  RESULTS_FILE,
  readResultRows,
  resetResultsFile,
  rewriteResultRows,
} from './results-file.js';
import { attemptJob, hasNominalCost, toRow } from './run-attempt-job.js';
import { writeRunManifest } from './run-manifest.js';
import { type EvalStop, type Job, runPool } from './run-pool.js';
import type { AttemptCache } from './run-rlm-attempt.js';

export type { EvalStop } from './run-pool.js';

/** @default 1 */
export const DEFAULT_EVAL_CONCURRENCY = 1;

/** Limits of the whole eval. */
export interface EvalBudget {
  /** Stop starting attempts once the rows cost this much (running attempts finish). */
  maxCostUsd?: number;
}

export interface RunEvalOptions {
  tasks: readonly EvalTask[];
  systems: readonly EvalSystemInput[];
  /** Attempts per task and system (pass@k uses them). @default 1 */
  attempts?: number;
  /** Attempts running at once. @default DEFAULT_EVAL_CONCURRENCY */
  concurrency?: number;
  budget?: EvalBudget;
  /** Where `results.jsonl`, trajectories and the report go; nothing is written when absent. */
  outDir?: string;
  /** Keep rows already in `outDir/results.jsonl` and run only the missing attempts. @default false */
  resume?: boolean;
  signal?: AbortSignal;
  onProgress?: (progress: EvalProgress) => void;
  /** @default createModelResolver() (offline ids work, real providers need `env`) */
  resolveModel?: ModelResolver;
  /** Functions for `custom` scorers, by name. */
  scorers?: Readonly<Record<string, ScoreFunction>>;
  /**
   * Answer repeated sub-calls of the rlm systems from a cache every attempt shares (base systems
   * make no sub-calls): a later attempt, or a later eval on the same store, does not pay again.
   * @default no cache
   */
  cache?: EvalCache;
  now?: () => number;
}

/** The sub-call cache of an eval. */
export interface EvalCache {
  /** As the run contract's `cache` (`{ store: 'sqlite' }` is what `rlm eval --cache` sends). */
  settings: RunCacheInput;
  /** The stores the settings may name (a door's database); `memory` is made once per eval when absent. */
  stores?: CallCacheStores;
}

export interface EvalRun {
  /** The systems as run, their defaults filled in. */
  systems: EvalSystem[];
  /** Every row: resumed ones first, then this session's in finishing order. */
  rows: ResultRow[];
  /** Attempts that have no row (budget stop or cancellation). */
  pending: number;
  stoppedBy: EvalStop | null;
}

/**
 * Runs every system on every task `attempts` times with bounded concurrency, scoring each
 * attempt and appending its row to `outDir/results.jsonl` as soon as it finishes, so an
 * interrupted eval resumes where it stopped. Writes the report (`report.md`, `summary.json`,
 * `accuracy.svg`) at the end.
 *
 * @throws RlmError `config.invalid` for bad systems or options; `eval.invalid_results` for a corrupt results file on resume
 * @example
 * const run = await runEval({ tasks: generateBenchmark('sniah', { sizes: [8_000] }),
 *   systems: [{ name: 'rlm', kind: 'rlm', model: 'testkit:reference' }], outDir: 'out' });
 */
export async function runEval(options: RunEvalOptions): Promise<EvalRun> {
  const { tasks, attempts = 1, concurrency = DEFAULT_EVAL_CONCURRENCY, signal } = options;
  const systems = parseSystems(options.systems);
  checkCounts({ attempts, concurrency, tasks });
  signal?.throwIfAborted();
  if (options.resolveModel !== undefined)
    return evaluate(options, { systems, resolveModel: options.resolveModel });
  // A resolver made here is closed here (it may own fake servers); a caller's stays theirs.
  const resolveModel = createModelResolver();
  try {
    return await evaluate(options, { systems, resolveModel });
  } finally {
    await resolveModel.close();
  }
}

async function evaluate(
  options: RunEvalOptions,
  { systems, resolveModel }: { systems: EvalSystem[]; resolveModel: ModelResolver },
): Promise<EvalRun> {
  const {
    tasks,
    attempts = 1,
    concurrency = DEFAULT_EVAL_CONCURRENCY,
    budget = {},
    outDir,
    resume = false,
    signal,
    onProgress,
    scorers = {},
    now = Date.now,
  } = options;
  const cache = await attemptCache(options.cache);

  const resultsPath = outDir === undefined ? undefined : join(outDir, RESULTS_FILE);
  const planned = planJobs({ tasks, systems, attempts });
  const stored = resultsPath !== undefined && resume ? await readResultRows(resultsPath) : [];
  if (resultsPath !== undefined) {
    if (resume) await rewriteResultRows(resultsPath, stored);
    else await resetResultsFile(resultsPath);
  }
  // Rows of tasks or systems outside this eval stay in the file but not in this run.
  const previous = stored.filter((row) => planned.has(rowKey(row)));
  const done = new Set(previous.map(rowKey));
  const jobs = [...planned].filter(([key]) => !done.has(key)).map(([, job]) => job);

  const rows: ResultRow[] = [...previous];
  const started = now();
  let finishedHere = 0;
  let writes: Promise<void> = Promise.resolve();
  const spent = () => rows.reduce((sum, row) => sum + row.costUsd, 0);
  const costNominal = systems.some(hasNominalCost);
  const report = (running: number) => {
    const passed = rows.filter((row) => row.passed).length;
    const elapsedMs = now() - started;
    onProgress?.({
      total: planned.size,
      completed: rows.length,
      resumed: previous.length,
      running,
      passed,
      accuracy: rows.length === 0 ? 0 : passed / rows.length,
      costUsd: spent(),
      ...(costNominal ? { costNominal } : {}),
      elapsedMs,
      etaMs: finishedHere === 0 ? null : (elapsedMs / finishedHere) * (planned.size - rows.length),
    });
  };

  if (outDir !== undefined) {
    await writeRunManifest(outDir, {
      systems,
      tasks,
      attempts,
      concurrency,
      budget,
      resumed: previous.length,
      startedAt: new Date(started).toISOString(),
    });
  }
  report(0);
  const stoppedBy = await runPool(jobs, {
    concurrency,
    stopReason: () =>
      signal?.aborted
        ? 'cancelled'
        : budget.maxCostUsd !== undefined && spent() >= budget.maxCostUsd
          ? 'budget'
          : null,
    run: async (job, running) => {
      const outcome = await attemptJob(job, { resolveModel, outDir, cache, signal, now });
      // A cancelled attempt leaves no row, so resume runs it again.
      if (outcome === undefined || signal?.aborted) return;
      const row = toRow(job, { outcome, scorers, now });
      rows.push(row);
      finishedHere += 1;
      report(running());
      if (resultsPath !== undefined) {
        writes = writes.then(() => appendResultRow(resultsPath, row));
        await writes;
      }
    },
  });
  await writes;
  if (outDir !== undefined) await writeReport(outDir, rows, { systems });
  return {
    rows,
    systems,
    pending: planned.size - rows.length,
    stoppedBy: rows.length === planned.size ? null : stoppedBy,
  };
}

/** The eval's cache as its attempts share it: one memory store for all of them, when asked for. */
async function attemptCache(cache: EvalCache | undefined): Promise<AttemptCache | undefined> {
  if (cache === undefined) return undefined;
  const stores = cache.stores ?? {};
  if (cache.settings.store !== 'memory' || stores.memory !== undefined) {
    return { settings: cache.settings, stores };
  }
  return { settings: cache.settings, stores: { ...stores, memory: await memoryCallCache() } };
}

/** Every attempt of the eval by its row key, task-major so partial runs compare systems on the same tasks. */
function planJobs({
  tasks,
  systems,
  attempts,
}: {
  tasks: readonly EvalTask[];
  systems: readonly EvalSystem[];
  attempts: number;
}): Map<string, Job> {
  const jobs = new Map<string, Job>();
  for (const task of tasks) {
    for (const system of systems) {
      for (let attempt = 0; attempt < attempts; attempt += 1) {
        jobs.set(rowKey({ taskId: task.id, system: system.name, attempt }), {
          task,
          system,
          attempt,
        });
      }
    }
  }
  return jobs;
}
