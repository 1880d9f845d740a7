import { RlmError } from '@rlm/protocol';
import type { Command } from 'commander';
import { ensureTrajectoryDir } from '../config/ensure-trajectory-dir.js';
import { readDrivers } from '../config/read-drivers.js';
import {
  defaultRunStorePath,
  defaultTrajectoryDir,
  resolveConfig,
} from '../config/resolve-config.js';
import { loadContexts } from '../context/load-contexts.js';
import { modelEndpoint } from '../engine/model-endpoint.js';
import type { ExitCode } from '../exit-code.js';
import { addConfigOptions, type ConfigCommandOptions, readConfigFlags } from './config-options.js';
import { reportCompletion } from './report-completion.js';
import type { RunCommandDeps } from './run-command.js';
import { runWithProgress } from './run-with-progress.js';

interface ResumeOptions extends ConfigCommandOptions {
  context?: string[];
  json?: boolean;
  quiet?: boolean;
}

/**
 * `rlm resume RUN_ID --context …`: continues a run that was killed or cancelled, from the
 * checkpoint after its last finished turn, with the same output and exit codes as `rlm run`.
 */
export function registerResumeCommand(program: Command, deps: RunCommandDeps): void {
  const command = program
    .command('resume')
    .description('continue an interrupted run from its last finished turn')
    .argument('<run-id>', 'the id of the interrupted run (its trajectory file is <run-id>.jsonl)')
    .option('-c, --context <path>', 'the same --context arguments as the original run', collect)
    .option('--json', 'print the full result object as JSON on stdout')
    .option('-q, --quiet', 'no progress on stderr');
  addConfigOptions(command);
  command.addHelpText(
    'after',
    `
rlm run records every run in the run store (--run-store, default <data dir>/runs.db) with a
checkpoint after each turn. A run that was killed or cancelled continues from its last finished
turn; the turn that was interrupted runs again. The context is not stored: pass the same
--context arguments (and the same model and limits) as the original run. Its trajectory file
is continued. Exit codes as for rlm run.

Examples:
  $ rlm resume 4f1c2a9e-… --context notes.txt
  $ rlm resume 4f1c2a9e-… -c q1.md -c q2.md --model openai/gpt-5-mini`,
  );
  command.action(async (runId: string, options: ResumeOptions & Record<string, unknown>) => {
    deps.setExitCode(await resumeAction(runId, options, deps));
  });
}

async function resumeAction(
  runId: string,
  options: ResumeOptions & Record<string, unknown>,
  { io, engine }: RunCommandDeps,
): Promise<ExitCode> {
  const { config } = resolveConfig({
    cwd: io.cwd,
    env: io.env,
    paths: io.paths,
    flags: readConfigFlags(options),
    ...(options.config === undefined ? {} : { configPath: options.config }),
  });
  if (runId.trim() === '') {
    throw new RlmError({
      code: 'cli.usage',
      message:
        'The run id is empty; pass the id of the interrupted run, e.g. rlm resume 4f1c2a9e-….',
      details: { option: 'run-id' },
    });
  }
  const quiet = options.quiet === true;
  const contexts = await loadContexts(options.context ?? [], {
    cwd: io.cwd,
    readStdin: () => io.readStdin(),
    include: config.include,
    exclude: config.exclude,
    maxBytes: config.maxContextBytes,
  });
  const drivers = await readDrivers(config.drivers);
  const trajectoryDir = config.trajectoryDir ?? defaultTrajectoryDir(io.paths);
  ensureTrajectoryDir(trajectoryDir);
  const completion = await runWithProgress(io, quiet, (signal, onEvent) =>
    engine.resume({
      runId: runId.trim(),
      contexts: contexts.map((context) => context.value),
      config,
      drivers,
      trajectoryDir,
      runStorePath: config.runStore ?? defaultRunStorePath(io.paths),
      env: io.env,
      signal,
      onEvent,
    }),
  );
  return reportCompletion(completion, {
    io,
    json: options.json === true,
    quiet,
    hints: { model: config.model, baseUrl: modelEndpoint(config.model, io.env) },
  });
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
