import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { errorKind, RlmError } from '@rlm/protocol';
import { generateBenchmark } from '../generators/generate-benchmark.js';
import { compareRuns, renderComparison } from '../report/compare-runs.js';
import { renderMarkdownReport } from '../report/render-markdown-report.js';
import { summarizeRows } from '../report/summarize-rows.js';
import { REPORT_FILES } from '../report/write-report.js';
import { formatProgress } from '../runner/eval-progress.js';
import type { EvalSystemInput } from '../runner/eval-system.js';
import { createModelResolver, type ModelResolver } from '../runner/model-resolver.js';
import { RESULTS_FILE, readResultRows } from '../runner/results-file.js';
import { runEval } from '../runner/run-eval.js';
import type { EvalTask } from '../task/eval-task.js';
import { loadTasks } from '../task/load-tasks.js';
import {
  EVAL_BOOLEAN_FLAGS,
  EVAL_VALUE_FLAGS,
  type EvalCommandOptions,
  parseEvalCommandOptions,
} from './eval-command-options.js';
import { EVAL_USAGE } from './eval-usage.js';
import { parseFlags, usage } from './parse-flags.js';

/** Where `runEvalCommand` writes and what it reads. */
export interface EvalCommandIo {
  stdout: { write(text: string): unknown };
  /** Progress goes here; with `isTTY` it redraws one line. */
  stderr: { write(text: string): unknown; isTTY?: boolean };
  /** API keys and base URLs for real models. */
  env: Readonly<Record<string, string | undefined>>;
  /** Relative paths (`--out`, `file:PATH`, compare's A and B) resolve against it. */
  cwd: string;
  /** Ctrl-C: stops starting attempts, cancels running ones, writes the report of what finished. */
  signal?: AbortSignal;
}

/** Exit codes of `rlm eval`. */
export const EVAL_EXIT = { ok: 0, failure: 1, usage: 2, cancelled: 130 } as const;

/**
 * `rlm eval …` and `rlm eval compare A B`, for the CLI to forward to. `argv` is what follows
 * `eval` on the command line. Never throws: errors are printed to `stderr` and become the exit
 * code (2 for usage errors, 1 for others, 130 when cancelled).
 *
 * @example
 * const code = await runEvalCommand(['--benchmark', 'sniah', '--sizes', '8k,32k', '--model', 'testkit:reference'],
 *   { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() });
 */
export async function runEvalCommand(argv: readonly string[], io: EvalCommandIo): Promise<number> {
  try {
    if (argv[0] === 'compare') return await compareCommand(argv.slice(1), io);
    const flags = parseFlags(argv, {
      valueFlags: EVAL_VALUE_FLAGS,
      booleanFlags: EVAL_BOOLEAN_FLAGS,
    });
    if (flags.values['help'] === true) {
      io.stdout.write(EVAL_USAGE);
      return EVAL_EXIT.ok;
    }
    if (flags.positionals.length > 0)
      throw usage(
        flags.positionals[0] as string,
        'is not a known command (expected flags, or compare A B)',
      );
    return await evalCommand(parseEvalCommandOptions(flags), io);
  } catch (error) {
    if (io.signal?.aborted) return EVAL_EXIT.cancelled;
    const message = error instanceof Error ? error.message : String(error);
    io.stderr.write(`rlm eval: ${message}\n`);
    // Usage errors by the one classification every front end shares (@rlm/protocol's kinds).
    if (RlmError.is(error) && errorKind(error.code) === 'usage') {
      io.stderr.write('Run rlm eval --help for the options.\n');
      return EVAL_EXIT.usage;
    }
    return EVAL_EXIT.failure;
  }
}

async function evalCommand(options: EvalCommandOptions, io: EvalCommandIo): Promise<number> {
  const outDir = resolve(io.cwd, options.out);
  const tasks =
    options.benchmark.kind === 'file'
      ? await loadTasks(resolve(io.cwd, options.benchmark.path))
      : generateBenchmark(options.benchmark.name, {
          sizes: options.sizes,
          seed: options.seed,
          count: options.tasks,
          needles: options.needles,
        });
  const resolveModel = createModelResolver({
    env: io.env,
    offlineTransport: options['offline-transport'],
  });
  const run = await runEvalWith(options, { io, tasks, outDir, resolveModel }).finally(() =>
    resolveModel.close(),
  );
  if (io.stderr.isTTY === true) io.stderr.write('\n');
  io.stdout.write(renderMarkdownReport(summarizeRows(run.rows)));
  io.stderr.write(
    `\nWrote ${join(outDir, RESULTS_FILE)}, ${REPORT_FILES.markdown}, ${REPORT_FILES.summary} and ${REPORT_FILES.chart} in ${outDir}\n`,
  );
  if (run.stoppedBy === 'budget')
    io.stderr.write(
      `Stopped at the cost limit: ${run.pending} attempts not run (use --resume to continue).\n`,
    );
  if (run.stoppedBy === 'cancelled') {
    io.stderr.write(`Cancelled: ${run.pending} attempts not run (use --resume to continue).\n`);
    return EVAL_EXIT.cancelled;
  }
  return EVAL_EXIT.ok;
}

function runEvalWith(
  options: EvalCommandOptions,
  {
    io,
    tasks,
    outDir,
    resolveModel,
  }: { io: EvalCommandIo; tasks: EvalTask[]; outDir: string; resolveModel: ModelResolver },
) {
  return runEval({
    tasks,
    systems: systemsFrom(options),
    attempts: options.attempts,
    concurrency: options.concurrency,
    ...(options['max-cost-usd'] === undefined
      ? {}
      : { budget: { maxCostUsd: options['max-cost-usd'] } }),
    outDir,
    resume: options.resume === true,
    ...(io.signal === undefined ? {} : { signal: io.signal }),
    resolveModel,
    onProgress: (progress) => {
      const line = formatProgress(progress);
      // On a terminal, redraw one line (\x1b[K clears what a longer previous line left).
      io.stderr.write(io.stderr.isTTY === true ? `\r${line}\x1b[K` : `${line}\n`);
    },
  });
}

/** One rlm system per prompt mode (`rlm-solver`, `rlm-coordinator`) and the base system. */
export function systemsFrom(options: EvalCommandOptions): EvalSystemInput[] {
  return options.systems.flatMap((kind): EvalSystemInput[] =>
    kind === 'base'
      ? [
          {
            name: 'base',
            kind: 'base',
            model: options.model,
            ...(options['base-window'] === undefined
              ? {}
              : { contextWindow: options['base-window'] }),
          },
        ]
      : options['prompt-mode'].map((mode) => ({
          name: `rlm-${mode}`,
          kind: 'rlm',
          model: options.model,
          promptMode: mode,
          drivers: options.drivers,
          ...(options['sub-model'] === undefined ? {} : { subModel: options['sub-model'] }),
          ...(options['max-depth'] === undefined ? {} : { maxDepth: options['max-depth'] }),
          ...(options['max-iterations'] === undefined
            ? {}
            : { maxIterations: options['max-iterations'] }),
        })),
  );
}

async function compareCommand(argv: readonly string[], io: EvalCommandIo): Promise<number> {
  const flags = parseFlags(argv, { valueFlags: [], booleanFlags: ['json'] });
  const [first, second, ...rest] = flags.positionals;
  if (first === undefined || second === undefined || rest.length > 0)
    throw usage('compare', 'expects two runs: rlm eval compare A B');
  const rowsA = await readRun(resolve(io.cwd, first));
  const rowsB = await readRun(resolve(io.cwd, second));
  const comparison = compareRuns(rowsA, rowsB);
  io.stdout.write(
    flags.values['json'] === true
      ? `${JSON.stringify(comparison, null, 2)}\n`
      : renderComparison(comparison, { labelA: first, labelB: second }),
  );
  return EVAL_EXIT.ok;
}

/** Rows of a run given as its directory or its results file. */
async function readRun(path: string) {
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
  return rows;
}
