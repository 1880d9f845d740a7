import { join } from 'node:path';
import { RlmError } from '@rlm/protocol';
import { writeReport } from '../report/write-report.js';
import { type ScoreFunction, scoreAnswer } from '../scorers/score-answer.js';
import type { EvalTask } from '../task/eval-task.js';
import { type AttemptOutcome, describeFailure } from './attempt-outcome.js';
import type { EvalProgress } from './eval-progress.js';
import { type EvalSystem, type EvalSystemInput, evalSystemSchema } from './eval-system.js';
import { createModelResolver, type ModelResolver } from './model-resolver.js';
import { type ResultRow, rowKey } from './result-row.js';
import {
  appendResultRow,
  RESULTS_FILE,
  readResultRows,
  resetResultsFile,
  rewriteResultRows,
} from './results-file.js';
import { runBaseAttempt } from './run-base-attempt.js';
import { writeRunManifest } from './run-manifest.js';
import { runRlmAttempt } from './run-rlm-attempt.js';

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
  now?: () => number;
}

/** Why an eval stopped before running every attempt. */
export type EvalStop = 'budget' | 'cancelled';

export interface EvalRun {
  /** Every row: resumed ones first, then this session's in finishing order. */
  rows: ResultRow[];
  /** Attempts that have no row (budget stop or cancellation). */
  pending: number;
  stoppedBy: EvalStop | null;
}

interface Job {
  task: EvalTask;
  system: EvalSystem;
  attempt: number;
}

/**
 * Runs every system on every task `attempts` times with bounded concurrency, scoring each
 * attempt and appending its row to `outDir/results.jsonl` as soon as it finishes, so an
 * interrupted eval resumes where it stopped. Writes the report (`report.md`, `summary.json`,
 * `accuracy.svg`) at the end.
 *
 * @throws RlmError `protocol.invalid_config` for bad systems or options; `eval.invalid_results` for a corrupt results file on resume
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
      const outcome = await attemptJob(job, { resolveModel, outDir, signal, now });
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
  if (outDir !== undefined) await writeReport(outDir, rows);
  return {
    rows,
    pending: planned.size - rows.length,
    stoppedBy: rows.length === planned.size ? null : stoppedBy,
  };
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

/**
 * Runs jobs with at most `concurrency` at once; before starting each, asks `stopReason` whether
 * to stop starting new ones (running ones always finish). Returns the first stop reason seen.
 */
async function runPool(
  jobs: readonly Job[],
  {
    concurrency,
    stopReason,
    run,
  }: {
    concurrency: number;
    stopReason: () => EvalStop | null;
    run: (job: Job, running: () => number) => Promise<void>;
  },
): Promise<EvalStop | null> {
  let next = 0;
  let running = 0;
  let stopped: EvalStop | null = null;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (next < jobs.length && stopped === null && failure === undefined) {
      stopped = stopReason();
      if (stopped !== null) return;
      const job = jobs[next] as Job;
      next += 1;
      running += 1;
      try {
        await run(job, () => running - 1);
      } catch (error) {
        // Fatal (configuration) errors stop every worker; the first one is rethrown below.
        failure ??= { error };
      } finally {
        running -= 1;
      }
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(concurrency, Math.max(1, jobs.length)) }, worker),
  );
  if (failure !== undefined) throw failure.error;
  return stopped ?? stopReason();
}

async function attemptJob(
  { task, system }: Job,
  {
    resolveModel,
    outDir,
    signal,
    now,
  }: {
    resolveModel: ModelResolver;
    outDir: string | undefined;
    signal: AbortSignal | undefined;
    now: () => number;
  },
): Promise<AttemptOutcome | undefined> {
  try {
    if (system.kind === 'base')
      return await runBaseAttempt({ system, task, resolveModel, signal, now });
    const trajectoryDir =
      outDir === undefined ? undefined : join(outDir, 'trajectories', system.name);
    return await runRlmAttempt({ system, task, resolveModel, trajectoryDir, signal, now });
  } catch (error) {
    if (signal?.aborted) return undefined;
    // A configuration failure (missing key, unknown driver) is the same for every task: stop.
    if (RlmError.is(error) && isConfigurationError(error.code)) throw error;
    return {
      answer: null,
      status: 'error',
      costUsd: 0,
      inputTokens: 0,
      outputTokens: 0,
      latencyMs: 0,
      iterations: 0,
      trajectoryPath: null,
      promptVersion: null,
      truncatedChars: 0,
      contextChars: 0,
      model: system.model,
      error: describeFailure(error),
    };
  }
}

const CONFIGURATION_CODES = new Set([
  'model.missing_api_key',
  'model.unknown_provider',
  'config.invalid',
  'cli.usage',
  'protocol.invalid_config',
  'prompts.driver_not_found',
  'prompts.driver_conflict',
]);

function isConfigurationError(code: string): boolean {
  return CONFIGURATION_CODES.has(code);
}

function toRow(
  { task, system, attempt }: Job,
  {
    outcome,
    scorers,
    now,
  }: {
    outcome: AttemptOutcome;
    scorers: Readonly<Record<string, ScoreFunction>>;
    now: () => number;
  },
): ResultRow {
  const { score, passed } = scoreAnswer(
    task.scorer,
    { answer: outcome.answer, expected: task.answer },
    { custom: scorers },
  );
  const size = task.meta['size'];
  return {
    taskId: task.id,
    system: system.name,
    attempt,
    benchmark: typeof task.meta['benchmark'] === 'string' ? task.meta['benchmark'] : 'custom',
    expected: task.answer,
    score,
    passed,
    ...outcome,
    // Generated tasks are grouped by the size asked for; others by the length actually read.
    contextChars: typeof size === 'number' ? size : outcome.contextChars,
    finishedAt: new Date(now()).toISOString(),
  };
}

function parseSystems(input: readonly EvalSystemInput[]): EvalSystem[] {
  const issues: string[] = [];
  const systems: EvalSystem[] = [];
  for (const [index, system] of input.entries()) {
    const result = evalSystemSchema.safeParse(system);
    if (result.success) systems.push(result.data);
    else
      issues.push(
        ...result.error.issues.map(
          (issue) => `systems.${index}.${issue.path.join('.')}: ${issue.message}`,
        ),
      );
  }
  const names = systems.map((system) => system.name);
  const duplicate = names.find((name, index) => names.indexOf(name) !== index);
  if (duplicate !== undefined) issues.push(`systems: the name "${duplicate}" is used twice`);
  if (input.length === 0) issues.push('systems: expected at least one system');
  if (issues.length > 0) {
    throw new RlmError({
      code: 'protocol.invalid_config',
      message: `Invalid eval systems: ${issues.join('; ')}`,
      details: { issues },
    });
  }
  return systems;
}

function checkCounts({
  attempts,
  concurrency,
  tasks,
}: {
  attempts: number;
  concurrency: number;
  tasks: readonly EvalTask[];
}): void {
  const issues: string[] = [];
  if (!Number.isInteger(attempts) || attempts < 1) {
    issues.push(`attempts: expected a positive integer, got ${attempts}`);
  }
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    issues.push(`concurrency: expected a positive integer, got ${concurrency}`);
  }
  // Rows are keyed by task id, so two tasks with one id would overwrite each other's results.
  const ids = new Set<string>();
  for (const task of tasks) {
    if (ids.has(task.id)) issues.push(`tasks: the id "${task.id}" is used twice`);
    ids.add(task.id);
  }
  if (issues.length > 0) {
    throw new RlmError({
      code: 'protocol.invalid_config',
      message: `Invalid eval options: ${issues.join('; ')}`,
      details: { issues },
    });
  }
}
