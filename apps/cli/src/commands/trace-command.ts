import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { RlmError, type TrajectoryRecord } from '@rlm/protocol';
import {
  findTrajectoryHeader,
  recordedExchanges,
  renderTraceHtml,
  TraceTree,
  trajectoryEvents,
} from '@rlm/trace';
import type { Command } from 'commander';
import type { CliIo } from '../cli-io.js';
import { resolveConfig } from '../config/resolve-config.js';
import { loadContexts } from '../context/load-contexts.js';
import { readContextStdin } from '../context/read-context-stdin.js';
import { toContextPayloads } from '../engine/to-context-payloads.js';
import { EXIT_CODES, type ExitCode } from '../exit-code.js';
import { renderRunTree } from '../render/render-run-tree.js';
import { collect } from './collect-option.js';
import { findTrajectory } from './find-trajectory.js';
import { loadTrajectory } from './load-trajectory.js';

/**
 * The records of a trajectory for the view. Slices of the run's contexts are expanded from the
 * `--context` arguments (checked against their recorded hashes); without any, each reads as a
 * note naming the context it comes from.
 */
async function traceRecords(
  path: string,
  paths: readonly string[],
  io: CliIo,
): Promise<TrajectoryRecord[]> {
  if (paths.length === 0) return loadTrajectory(path);
  const { config } = resolveConfig({ cwd: io.cwd, env: io.env, paths: io.paths, flags: {} });
  const contexts = await loadContexts(paths, {
    cwd: io.cwd,
    readStdin: () => readContextStdin(io),
    include: config.include,
    exclude: config.exclude,
    maxBytes: config.maxContextBytes,
    allowEmpty: true,
  });
  const { context, contexts: rest } = toContextPayloads(contexts.map((item) => item.value));
  return loadTrajectory(path, { payloads: [context, ...rest] });
}

interface TraceOptions {
  html?: string;
  context?: string[];
  format?: string;
  jsonl?: boolean;
}

const FORMATS = ['tree', 'jsonl', 'rlmpaper'] as const;
type TraceFormat = (typeof FORMATS)[number];

/** The one output the flags ask for; `--html` goes with the tree only. */
function traceFormat(options: TraceOptions): TraceFormat {
  const format = options.format ?? (options.jsonl === true ? 'jsonl' : 'tree');
  if (!(FORMATS as readonly string[]).includes(format)) {
    throw new RlmError({
      code: 'cli.usage',
      message: `--format ${format} is not a trace format; expected one of ${FORMATS.join(', ')}.`,
      details: { option: '--format' },
    });
  }
  if (options.jsonl === true && format !== 'jsonl') {
    throw new RlmError({
      code: 'cli.usage',
      message: `--jsonl and --format ${format} ask for two outputs; pass one of them.`,
      details: { option: '--format' },
    });
  }
  if (options.html !== undefined && format !== 'tree') {
    throw new RlmError({
      code: 'cli.usage',
      message: `--html writes the page and --format ${format} prints records; pass one of them (run rlm trace twice for both).`,
      details: { option: '--html' },
    });
  }
  return format as TraceFormat;
}

/** `rlm trace PATH [--html OUT]`: a recorded run as a terminal tree or one HTML file. */
export function registerTraceCommand(
  program: Command,
  { io, setExitCode }: { io: CliIo; setExitCode(code: ExitCode): void },
): void {
  program
    .command('trace')
    .description('show a recorded run (trajectory) as a tree, or write it as one HTML page')
    .argument('<trajectory>', 'a .jsonl trajectory file, or a run id in the trajectory directory')
    .option('--html <file>', 'write a self-contained HTML page instead of printing the tree')
    .option(
      '--format <format>',
      "what to print: tree (default), jsonl (plain trajectory records, one per line) or rlmpaper (the reference engine's trace log)",
    )
    .option('--jsonl', 'print the trajectory as plain JSONL (the same as --format jsonl)')
    .option(
      '-c, --context <path>',
      "the recorded run's --context arguments: its prompts' slices of them are shown in full",
      collect,
    )
    .option('--debug', 'show stack traces on errors')
    .addHelpText(
      'after',
      `
Examples:
  $ rlm trace ~/.local/share/rlm/trajectories/4f1c….jsonl
  $ rlm trace 4f1c2a9e-…            # a run id from the trajectory directory
  $ rlm trace run.jsonl --html run.html && open run.html
  $ rlm trace run.jsonl --context notes.txt --html run.html   # prompts with their context slices
  $ rlm trace last --jsonl | jq 'select(.event.type=="subcall-end")'
  $ rlm trace last --format rlmpaper > run.rlmpaper.jsonl   # for the reference engine's visualizer

Trajectory files pack repeated text and group lines; --jsonl writes every record whole, as the
server's trajectory download does. Trajectories keep slices of the context as references: without
--context a slice reads as a note naming the context (its size and hash) it comes from.`,
    )
    .action(async (reference: string, options: TraceOptions) => {
      await traceAction(reference, options, io);
      setExitCode(EXIT_CODES.answered);
    });
}

async function traceAction(reference: string, options: TraceOptions, io: CliIo): Promise<void> {
  const format = traceFormat(options);
  const records = await traceRecords(
    await findTrajectory(reference, io),
    options.context ?? [],
    io,
  );
  if (format === 'jsonl') {
    // One record per line, as the run store serves them: `jq` sees every event.
    for (const record of records) io.stdout.write(`${JSON.stringify(record)}\n`);
    return;
  }
  if (format === 'rlmpaper') {
    // Loaded here: the executor is most of the CLI's start-up time.
    const { exportRlmpaperLog } = await import('@rlm/executor');
    io.stdout.write(exportRlmpaperLog(records));
    return;
  }
  const tree = new TraceTree();
  for (const event of trajectoryEvents(records)) tree.apply(event);
  if (options.html !== undefined) {
    const out = resolve(io.cwd, options.html);
    const runId = tree.rootRunId ?? findTrajectoryHeader(records)?.runId ?? '';
    const exchanges = recordedExchanges(records);
    await writeFile(out, renderTraceHtml(tree, { title: `rlm trace ${runId}`.trim(), exchanges }));
    io.stderr.write(`wrote ${out}\n`);
    return;
  }
  const lines = renderRunTree(tree, {
    now: tree.lastAt ?? 0,
    width: io.stdout.columns ?? 100,
    color: io.stdout.isTTY === true && io.env['NO_COLOR'] === undefined,
    detail: 'full',
  });
  io.stdout.write(`${lines.join('\n')}\n`);
}
