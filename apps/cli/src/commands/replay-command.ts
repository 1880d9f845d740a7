import { resolve } from 'node:path';
import { RlmError, type TrajectoryRecord } from '@rlm/protocol';
import { findTrajectoryHeader, trajectoryReplLanguage } from '@rlm/trace';
import type { Command } from 'commander';
import type { CliIo } from '../cli-io.js';
import { loadToolModules } from '../config/load-tool-modules.js';
import { readDrivers } from '../config/read-drivers.js';
import { resolveConfig } from '../config/resolve-config.js';
import { loadContexts } from '../context/load-contexts.js';
import { readContextStdin } from '../context/read-context-stdin.js';
import { toContextPayloads } from '../engine/to-context-payloads.js';
import { EXIT_CODES, type ExitCode } from '../exit-code.js';
import { collect } from './collect-option.js';
import { findTrajectory } from './find-trajectory.js';
import { loadTrajectory } from './load-trajectory.js';
import { replayRlmpaperAction } from './replay-rlmpaper-action.js';

interface ReplayCommandOptions {
  context?: string[];
  driver?: string[];
  tool?: string[];
  include?: string[];
  exclude?: string[];
  repl?: string;
}

/** `rlm replay PATH --context …`: re-runs a recorded trajectory offline and says whether it reproduces. */
export function registerReplayCommand(
  program: Command,
  { io, setExitCode }: { io: CliIo; setExitCode(code: ExitCode): void },
): void {
  program
    .command('replay')
    .description(
      're-run a trajectory offline (recorded model answers) and check that it reproduces',
    )
    .argument('<trajectory>', 'a .jsonl trajectory file, or a run id in the trajectory directory')
    .option('-c, --context <path>', 'the same --context arguments as the recorded run', collect)
    .option('--driver <name-or-file>', 'the same --driver arguments as the recorded run', collect)
    .option('--tool <module>', 'the same --tool modules as the recorded run', collect)
    .option('--include <glob>', 'as in the recorded run', collect)
    .option('--exclude <glob>', 'as in the recorded run', collect)
    .option(
      '--repl <language>',
      "for a reference-engine trace log: the REPL its blocks run in again (python, the log's language)",
    )
    .option('--debug', 'show stack traces on errors')
    .addHelpText(
      'after',
      `
Trajectories keep the context's size and hash, not the context: pass the same --context
arguments as the original run (and the same --tool modules: tool results are not recorded;
a run made with --no-tools replays without the helpers by itself). Exit codes: 0 reproduces, 1 diverges (the first differing step
is printed), 2 the trajectory or context is not the recorded one.

A reference-engine trace log (its JSONL with metadata and iteration lines) replays block by
block instead: each recorded code block runs again in our Python REPL (--repl python) over the
context the log recorded (or --context), sub-calls answered from the log, and every block that
prints, raises, answers or sets a variable differently is named with the difference (exit 1).

Examples:
  $ rlm replay run.jsonl --context notes.txt
  $ rlm replay last~1 --context notes.txt
  $ rlm replay rlm_2026-11-20_10-00-00_ab12cd34.jsonl --repl python
  $ rlm replay 4f1c2a9e-… --context src --include "**/*.ts"`,
    )
    .action(async (reference: string, options: ReplayCommandOptions) => {
      setExitCode(await replayAction(reference, options, io));
    });
}

async function replayAction(
  reference: string,
  options: ReplayCommandOptions,
  io: CliIo,
): Promise<ExitCode> {
  const path = await findTrajectory(reference, io);
  // Read first without the context (slices read as notes) to learn what the file records.
  const recorded = await loadTrajectory(path);
  if (findTrajectoryHeader(recorded)?.config['source'] === 'rlmpaper') {
    return replayRlmpaperAction(path, options, io);
  }
  assertRecordedRepl(path, recorded, options.repl);
  await assertNotMcpSession(recorded, { path, reference });
  const { config } = resolveConfig({
    cwd: io.cwd,
    env: io.env,
    paths: io.paths,
    flags: {
      ...(options.include === undefined ? {} : { include: options.include }),
      ...(options.exclude === undefined ? {} : { exclude: options.exclude }),
      ...(options.driver === undefined ? {} : { drivers: options.driver }),
    },
  });
  const contexts = await loadContexts(options.context ?? [], {
    cwd: io.cwd,
    readStdin: () => readContextStdin(io),
    include: config.include,
    exclude: config.exclude,
    maxBytes: config.maxContextBytes,
    allowEmpty: true,
  });
  const payloads = toContextPayloads(contexts.map((context) => context.value));
  // Slices of another context read as placeholders; replay then names the context that differs.
  const records = await loadTrajectory(path, {
    payloads: [payloads.context, ...payloads.contexts],
    missingContext: 'placeholder',
  });
  const drivers = await readDrivers(options.driver ?? []);
  // Tool results are not recorded: the code calls the same modules again.
  const tools = await loadToolModules((options.tool ?? []).map((path) => resolve(io.cwd, path)));
  // Loaded here, not at start-up: see createExecutorEngine.
  const { replay } = await import('@rlm/executor');
  try {
    const { result, events } = await replay(records, {
      ...payloads,
      drivers,
      tools,
    });
    io.stdout.write(
      `Reproduces: ${events.length} events, status ${result.status}, answer: ${result.answer ?? '(none)'}\n`,
    );
    return EXIT_CODES.answered;
  } catch (error) {
    if (!RlmError.is(error, 'executor.replay_divergence')) throw error;
    const { step, expected, actual } = error.details;
    // The executor names the payload that differs: `context …`, or `context_1 …` for a later one.
    if (step === 0 && /^context(_\d+)? /.test(expected)) {
      throw new RlmError({
        code: 'cli.usage',
        message: contextMismatch(expected, actual, { reference, given: contexts.length }),
        details: { option: '--context' },
      });
    }
    io.stdout.write(
      `Does not reproduce: diverged at step ${step}.\n  expected: ${expected}\n  actual:   ${actual}\n`,
    );
    return EXIT_CODES.failed;
  }
}

/**
 * Why the given contexts are not the recorded ones. Without `--context` the executor compares
 * with the hash of an empty context, which reads like a wrong file: say instead what is missing.
 */
function contextMismatch(
  expected: string,
  actual: string,
  { reference, given }: { reference: string; given: number },
): string {
  const fix = 'pass the same --context arguments as the original run, in the same order';
  if (given === 0) {
    return `This run was recorded with a context (${expected}) and no --context was given; ${fix}: rlm replay ${reference} --context <path>.`;
  }
  const name = expected.split(' ')[0] ?? 'context';
  if (actual.endsWith(' none')) {
    return `This run was recorded with more contexts than the ${given} given (${expected} was not given); ${fix}.`;
  }
  if (expected.endsWith(' none')) {
    return `This run was recorded with fewer contexts than the ${given} given (it had no ${name}); ${fix}.`;
  }
  return `The context is not the one this run recorded (${expected} vs ${actual}); ${fix}.`;
}

/** Our trajectories replay in the language they were recorded with: a different `--repl` is a mistake. */
function assertRecordedRepl(
  path: string,
  records: readonly TrajectoryRecord[],
  repl: string | undefined,
): void {
  const recorded = trajectoryReplLanguage(records);
  if (repl === undefined || repl === recorded) return;
  throw new RlmError({
    code: 'cli.usage',
    message: `--repl ${repl}: ${path} was recorded in ${recorded}, and replays in the language it was recorded with; leave out --repl.`,
    details: { option: '--repl' },
  });
}

/** An MCP session's blocks came from the client's model, which no recording can be asked again. */
async function assertNotMcpSession(
  recorded: readonly TrajectoryRecord[],
  { path, reference }: { path: string; reference: string },
): Promise<void> {
  // Runs' headers have no `kind`: only a record that has one pays for loading @rlm/mcp.
  const kind = findTrajectoryHeader(recorded)?.config['kind'];
  if (kind === undefined || !(await import('@rlm/mcp')).isMcpSessionTrajectory(recorded)) return;
  throw new RlmError({
    code: 'cli.trajectory_invalid',
    message: `${path} records an MCP session (the client's model wrote its blocks), not a run: it cannot be replayed. Show it with rlm trace ${reference}.`,
    details: { path, line: undefined },
  });
}
