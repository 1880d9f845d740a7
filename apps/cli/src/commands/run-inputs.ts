import type { RLMChatCompletion } from '@rlm/protocol';
import type { CliIo } from '../cli-io.js';
import { ensureTrajectoryDir } from '../config/ensure-trajectory-dir.js';
import { loadToolModules } from '../config/load-tool-modules.js';
import { readDrivers } from '../config/read-drivers.js';
import {
  defaultRunStorePath,
  defaultTrajectoryDir,
  resolveConfig,
} from '../config/resolve-config.js';
import { type LoadedContext, loadContexts } from '../context/load-contexts.js';
import { modelEndpoint } from '../engine/model-endpoint.js';
import type { RunRequest } from '../engine/run-engine.js';
import type { ExitCode } from '../exit-code.js';
import { type ConfigCommandOptions, readConfigFlags } from './config-options.js';
import { reportCompletion } from './report-completion.js';

/** Flags shared by `rlm run` and `rlm resume`. */
export interface RunInputOptions extends ConfigCommandOptions {
  context?: string[];
  json?: boolean;
  quiet?: boolean;
}

/** What `rlm run` and `rlm resume` hand to the engine, resolved once from flags, config and files. */
export interface RunInputs {
  /** Everything the engine needs except the query (or run id), the signal and the event sink. */
  request: Omit<RunRequest, 'query' | 'signal' | 'onEvent'>;
  loaded: LoadedContext[];
  quiet: boolean;
  json: boolean;
}

/**
 * Resolves configuration, reads every `--context` and driver file, imports the tool modules, and checks the trajectory
 * directory before anything runs, so a bad input fails before a model is called.
 */
export async function prepareRunInputs(
  options: RunInputOptions & Record<string, unknown>,
  io: CliIo,
): Promise<RunInputs> {
  const { config } = resolveConfig({
    cwd: io.cwd,
    env: io.env,
    paths: io.paths,
    flags: readConfigFlags(options),
    ...(options.config === undefined ? {} : { configPath: options.config }),
  });
  const loaded = await loadContexts(options.context ?? [], {
    cwd: io.cwd,
    readStdin: () => io.readStdin(),
    include: config.include,
    exclude: config.exclude,
    maxBytes: config.maxContextBytes,
  });
  const drivers = await readDrivers(config.drivers);
  // Off means the bare REPL: the modules are not even imported.
  const tools = config.tools ? await loadToolModules(config.toolModules) : {};
  const trajectoryDir = config.trajectoryDir ?? defaultTrajectoryDir(io.paths);
  ensureTrajectoryDir(trajectoryDir);
  return {
    quiet: options.quiet === true,
    json: options.json === true,
    loaded,
    request: {
      contexts: loaded.map((context) => context.value),
      config,
      drivers,
      tools,
      trajectoryDir,
      runStorePath: config.runStore ?? defaultRunStorePath(io.paths),
      env: io.env,
    },
  };
}

/** Prints the answer (or the failure) and picks the exit code, the same way for run and resume. */
export function reportRun(
  completion: RLMChatCompletion,
  { inputs, io }: { inputs: RunInputs; io: CliIo },
): ExitCode {
  const { config } = inputs.request;
  return reportCompletion(completion, {
    io,
    json: inputs.json,
    quiet: inputs.quiet,
    hints: { model: config.model, baseUrl: modelEndpoint(config.model, io.env) },
  });
}
