import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { CallCacheStores } from '@rlm/executor';
import type { PromptMode } from '@rlm/prompts';
import { RlmError } from '@rlm/protocol';
import { loadArcTasks } from '../arc/arc-tasks.js';
import { generateBenchmark } from '../generators/generate-benchmark.js';
import { renderMarkdownReport } from '../report/render-markdown-report.js';
import { summarizeRows } from '../report/summarize-rows.js';
import { REPORT_FILES } from '../report/write-report.js';
import type { EvalSystemInput } from '../runner/eval-system.js';
import { createModelResolver } from '../runner/model-resolver.js';
import { RESULTS_FILE } from '../runner/results-file.js';
import { type EvalCache, type EvalRun, type EvalStop, runEval } from '../runner/run-eval.js';
import type { EvalTask } from '../task/eval-task.js';
import { loadTasks } from '../task/load-tasks.js';
import { attachDrivers } from './driver-choice.js';
import {
  DEFAULT_EVAL_SIZE,
  type EvalCommandOptions,
  type EvalCommandOptionsInput,
  parseEvalCommandOptions,
} from './eval-command-options.js';
import { createProgressWriter } from './progress-writer.js';

/** Where `runEvalCommand` and `runCompareCommand` write and what they read. */
export interface EvalCommandIo {
  /** The report (or comparison) goes here. */
  stdout: { write(text: string): unknown };
  /** Progress and notes go here; `isTTY` picks the default progress mode. */
  stderr: { write(text: string): unknown; isTTY?: boolean };
  /** API keys and base URLs for real models. */
  env: Readonly<Record<string, string | undefined>>;
  /** Relative paths (`out`, `file:PATH`, compared runs) resolve against it. */
  cwd: string;
  /** Ctrl-C: stops starting attempts, cancels running ones, writes the report of what finished. */
  signal?: AbortSignal;
  /** Epoch milliseconds, for the pace of plain progress. @default Date.now */
  now?: () => number;
  /** The door's cache stores (the CLI's SQLite file), used with the `cache` option. */
  callCaches?: CallCacheStores;
}

/** How an eval ended: where it wrote, and whether a budget or a cancel stopped it early. */
export interface EvalCommandResult {
  outDir: string;
  /** Attempts not run (resume them with `resume: true`). */
  pending: number;
  stoppedBy: EvalStop | null;
}

/**
 * What `rlm eval` does after parsing its flags: generate or load the tasks, run every system on
 * them, print the Markdown report on stdout and progress on stderr, and write results, report,
 * summary and chart to `out`. A budget or a cancel (`io.signal`) stops it early and still writes
 * the report of what finished; the result says so (`stoppedBy`, `pending`), for the caller to
 * tell the user how to continue.
 *
 * @throws RlmError `config.invalid` for bad options; `eval.invalid_task` for bad tasks; an
 *   attempt's `usage` or `auth` error (a missing key, an unknown policy), which every task would share
 * @example
 * const result = await runEvalCommand(
 *   { benchmark: 'sniah', sizes: ['8k', '32k'], model: 'testkit:reference' },
 *   { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() },
 * );
 */
export async function runEvalCommand(
  input: EvalCommandOptionsInput,
  io: EvalCommandIo,
): Promise<EvalCommandResult> {
  const options = parseEvalCommandOptions(input);
  const outDir = resolve(io.cwd, options.out);
  if (!options.resume && !options.force) await refuseOverwrite(join(outDir, RESULTS_FILE));
  const tasks = await tasksOf(options, io.cwd);
  const resolveModel = createModelResolver({
    env: io.env,
    offlineTransport: options.offlineTransport,
  });
  const progress = createProgressWriter(io.stderr, {
    mode: options.progress ?? (io.stderr.isTTY === true ? 'tree' : 'plain'),
    now: io.now ?? Date.now,
  });
  let run: EvalRun;
  try {
    run = await runEval({
      tasks,
      systems: systemsFrom(options),
      attempts: options.attempts,
      concurrency: options.concurrency,
      ...(options.maxCostUsd === undefined ? {} : { budget: { maxCostUsd: options.maxCostUsd } }),
      outDir,
      resume: options.resume,
      ...(options.cache ? { cache: evalCache(io.callCaches) } : {}),
      ...(io.signal === undefined ? {} : { signal: io.signal }),
      resolveModel,
      onProgress: (snapshot) => progress.update(snapshot),
    });
  } finally {
    progress.stop();
    await resolveModel.close();
  }
  io.stdout.write(renderMarkdownReport(summarizeRows(run.rows), { systems: run.systems }));
  io.stderr.write(
    `\nWrote ${join(outDir, RESULTS_FILE)}, ${REPORT_FILES.markdown}, ${REPORT_FILES.summary} and ${REPORT_FILES.chart} in ${outDir}\n`,
  );
  return { outDir, pending: run.pending, stoppedBy: run.stoppedBy };
}

/**
 * `cache: true` as `rlm run --cache` means it: shared by every run on the door's SQLite store when
 * it has one, no expiry, sampled calls left out; else in memory, shared by this eval's attempts.
 */
function evalCache(stores: CallCacheStores | undefined): EvalCache {
  const store = stores?.sqlite === undefined ? 'memory' : 'sqlite';
  return { settings: { store, scope: 'shared' }, ...(stores === undefined ? {} : { stores }) };
}

/**
 * One rlm system per prompt mode (`rlm-solver`, `rlm-coordinator`), each with the drivers chosen
 * for its mode or fitting it, and the base system.
 */
export function systemsFrom(options: EvalCommandOptions): EvalSystemInput[] {
  const attached = attachDrivers(options.drivers, { modes: options.modes, repl: options.repl });
  const driversOf = (mode: PromptMode) => (attached.ok ? (attached.drivers.get(mode) ?? []) : []);
  return options.systems.flatMap((kind): EvalSystemInput[] =>
    kind === 'base'
      ? [
          {
            name: 'base',
            kind: 'base',
            model: options.model,
            ...(options.baseWindow === undefined ? {} : { contextWindow: options.baseWindow }),
          },
        ]
      : options.modes.map((mode) => ({
          name: `rlm-${mode}`,
          kind: 'rlm',
          model: options.model,
          promptMode: mode,
          repl: options.repl,
          drivers: driversOf(mode),
          ...(options.subModel === undefined ? {} : { subModel: options.subModel }),
          ...(options.maxDepth === undefined ? {} : { maxDepth: options.maxDepth }),
          ...(options.maxIterations === undefined ? {} : { maxIterations: options.maxIterations }),
        })),
  );
}

/**
 * An earlier eval's rows are results someone paid for: a second eval into the same directory
 * must say whether it replaces them (`force`) or continues them (`resume`). An empty file (an
 * eval cancelled before its first row) holds nothing to lose.
 *
 * @throws RlmError `config.invalid` naming the file and both flags
 */
async function refuseOverwrite(resultsPath: string): Promise<void> {
  const size = (await stat(resultsPath).catch(() => undefined))?.size ?? 0;
  if (size === 0) return;
  throw new RlmError({
    code: 'config.invalid',
    message: `${resultsPath} already holds the rows of an earlier eval; pass --force to replace them, --resume to continue that eval, or another --out`,
    details: {
      source: 'eval options',
      issues: [`out: ${resultsPath} exists (pass force to replace it or resume to continue it)`],
    },
  });
}

/** The tasks the options name: a JSONL file, a directory of ARC task files, or a generated suite. */
async function tasksOf(options: EvalCommandOptions, cwd: string): Promise<EvalTask[]> {
  if (options.benchmark.kind === 'file') return loadTasks(resolve(cwd, options.benchmark.path));
  // The options schema allows a directory only for arc.
  if (typeof options.tasks === 'string') return loadArcTasks(resolve(cwd, options.tasks));
  return generateBenchmark(options.benchmark.name, {
    sizes: options.sizes ?? [DEFAULT_EVAL_SIZE],
    seed: options.seed,
    count: options.tasks,
    needles: options.needles ?? 1,
  });
}
