import type { RLMChatCompletion } from '@rlm/protocol';
import type { CliIo } from '../cli-io.js';
import type { CliConfig, PartialCliConfig, ProgressMode } from '../config/config-schema.js';
import { coordinatorDepthNote } from '../config/coordinator-depth.js';
import { ensureTrajectoryDir } from '../config/ensure-trajectory-dir.js';
import { loadToolModules } from '../config/load-tool-modules.js';
import { readDrivers } from '../config/read-drivers.js';
import {
  defaultRunStorePath,
  defaultTrajectoryDir,
  type ResolvedConfig,
  resolveConfig,
} from '../config/resolve-config.js';
import { type LoadedContext, loadContexts } from '../context/load-contexts.js';
import { readContextStdin } from '../context/read-context-stdin.js';
import { modelEndpoint } from '../engine/model-endpoint.js';
import type { RunRequest } from '../engine/run-engine.js';
import type { ExitCode } from '../exit-code.js';
import { readConfigFlags } from './config-options.js';
import { mcpResumeFlags } from './mcp-options.js';
import { reportCompletion } from './report-completion.js';
import { resumeCommandLine } from './resume-command-line.js';
import type { RunInputOptions } from './run-options.js';

/** What `rlm run` and `rlm resume` hand to the engine, resolved once from flags, config and files. */
export interface RunInputs {
  /** Everything the engine needs except the run id, the query, the signal and the event sink. */
  request: Omit<RunRequest, 'runId' | 'query' | 'signal' | 'onEvent'>;
  loaded: LoadedContext[];
  quiet: boolean;
  json: boolean;
  /** How progress shows: `--progress`, else a live tree on a terminal and plain lines off one; none when quiet. */
  progress: ProgressMode;
  /** What the configuration decided that the user should hear about (stderr, unless quiet). */
  notes: string[];
}

/** The configuration of `rlm run` or `rlm resume`, from every layer (and a resumed run's record). */
export function resolveRunConfig(
  options: RunInputOptions & Record<string, unknown>,
  io: CliIo,
  recorded?: PartialCliConfig,
): ResolvedConfig {
  return resolveConfig({
    cwd: io.cwd,
    env: io.env,
    paths: io.paths,
    flags: readConfigFlags(options),
    ...(options.config === undefined ? {} : { configPath: options.config }),
    ...(recorded === undefined ? {} : { recorded }),
  });
}

/** Where runs and checkpoints are kept under `config`. */
export function runStorePathOf(config: CliConfig, io: CliIo): string {
  return config.runStore ?? defaultRunStorePath(io.paths);
}

/**
 * Reads every `--context` and driver file, imports the tool modules, and checks the trajectory
 * directory before anything runs, so a bad input fails before a model is called. The
 * configuration is resolved from the flags when not given.
 */
export async function prepareRunInputs(
  options: RunInputOptions & Record<string, unknown>,
  io: CliIo,
  resolved: ResolvedConfig = resolveRunConfig(options, io),
): Promise<RunInputs> {
  const { config } = resolved;
  const loaded = await loadContexts(options.context ?? [], {
    cwd: io.cwd,
    readStdin: () => readContextStdin(io),
    include: config.include,
    exclude: config.exclude,
    maxBytes: config.maxContextBytes,
  });
  const drivers = await readDrivers(config.drivers);
  // Off means the bare REPL: the modules are not even imported.
  const tools = config.tools ? await loadToolModules(config.toolModules) : {};
  const trajectoryDir = config.trajectoryDir ?? defaultTrajectoryDir(io.paths);
  ensureTrajectoryDir(trajectoryDir);
  const quiet = options.quiet === true;
  const note = coordinatorDepthNote(resolved);
  return {
    quiet,
    json: options.json === true,
    progress: quiet ? 'none' : (config.progress ?? (io.stderr.isTTY === true ? 'tree' : 'plain')),
    notes: note === undefined ? [] : [note],
    loaded,
    request: {
      contexts: loaded.map((context) => context.value),
      config,
      drivers,
      tools,
      trajectoryDir,
      runStorePath: runStorePathOf(config, io),
      env: io.env,
    },
  };
}

/** Prints the answer (or the failure) and picks the exit code, the same way for run and resume. */
export function reportRun(
  completion: RLMChatCompletion,
  {
    inputs,
    io,
    options,
  }: { inputs: RunInputs; io: CliIo; options: RunInputOptions & Record<string, unknown> },
): ExitCode {
  const { config } = inputs.request;
  return reportCompletion(completion, {
    io,
    json: inputs.json,
    quiet: inputs.quiet,
    hints: { model: config.model, baseUrl: modelEndpoint(config.model, io.env) },
    ...(typeof options['outputSchema'] === 'string'
      ? { outputSchemaFile: options['outputSchema'] }
      : {}),
    resumeCommand: resumeCommandLine({
      runId: completion.runId,
      contexts: options.context ?? [],
      ...(typeof options['runStore'] === 'string' ? { runStore: options['runStore'] } : {}),
      flags: mcpResumeFlags(options),
    }),
  });
}
