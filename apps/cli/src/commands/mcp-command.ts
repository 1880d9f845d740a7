import { randomUUID } from 'node:crypto';
import { join, resolve } from 'node:path';
import { DEFAULT_MODEL_ID } from '@rlm/executor/defaults';
import type { RlmQueryRequest } from '@rlm/mcp';
import { applyCallerChoices, type LanguageModel, RlmError } from '@rlm/protocol';
import type { Command } from 'commander';
import type { CliIo } from '../cli-io.js';
import { cliRunSettings } from '../engine/cli-run-settings.js';
import type { RunEngine } from '../engine/run-engine.js';
import { EXIT_CODES, type ExitCode } from '../exit-code.js';
import { collect } from './collect-option.js';
import { addConfigOptions } from './config-options.js';
import { prepareRunInputs, resolveRunConfig } from './run-inputs.js';
import type { RunInputOptions } from './run-options.js';

export interface McpCommandDeps {
  io: CliIo;
  engine: RunEngine;
  setExitCode(code: ExitCode): void;
}

interface McpCommandOptions extends RunInputOptions {
  root?: string[];
}

/** `rlm mcp`: the RLM as MCP tools over stdio, until the client closes the connection. */
export function registerMcpCommand(program: Command, deps: McpCommandDeps): void {
  const command = program
    .command('mcp')
    .description(
      'serve the RLM as Model Context Protocol tools over stdio (Claude Code, Claude Desktop, Cursor, …)',
    )
    .option(
      '--root <dir>',
      "a directory tool calls may read besides the client's roots (the working directory when it declares none); repeatable",
      collect,
    );
  addConfigOptions(command);
  command.addHelpText(
    'after',
    `
Tools: rlm_query (a whole run with --model; a client may pick another model only from
--allow-model, never an endpoint or a key, and may only lower limits), context_load, repl_exec
and repl_reset (the
client's own model writes the code; llm_query goes back to it through MCP sampling, or, when
the client offers none, to --sub-model, else to a --model you gave). stdout carries the
protocol; logs go to stderr. Runs and the session's own blocks and sub-calls are recorded in
the trajectory directory (rlm trace shows them; a session cannot be replayed).

Examples:
  $ claude mcp add rlm -- rlm mcp --model ${DEFAULT_MODEL_ID}
  $ rlm mcp --model ${DEFAULT_MODEL_ID} --allow-model anthropic/claude-haiku-5-5
  $ rlm mcp --sub-model openai/gpt-5-mini --root ~/datasets`,
  );
  command.action(async (options: McpCommandOptions & Record<string, unknown>) => {
    deps.setExitCode(await mcpAction(options, deps));
  });
}

/** A model resolved on its first call, so a missing key fails that call, not the server. */
function lazyModel(id: string, io: CliIo): LanguageModel {
  let model: Promise<LanguageModel> | null = null;
  const resolved = () => {
    model ??= import('../engine/load-cli-model-resolver.js')
      .then(({ loadCliModelResolver }) => loadCliModelResolver([id]))
      .then((resolve) => resolve(id, io.env));
    return model;
  };
  return { id, complete: async (request) => (await resolved()).complete(request) };
}

/**
 * rlm_query stays offered when the model's key is missing: the env is fixed at start, but a
 * client may still pick an --allow-model model that has one, and a call that fails saying what
 * to do reaches the user in the client, where a tool that is silently absent does not. The
 * library's message names its `apiKey` option, which `rlm mcp` has no way to pass.
 */
async function withCliKeyHint<T>(run: Promise<T>): Promise<T> {
  try {
    return await run;
  } catch (error) {
    if (!RlmError.is(error, 'model.auth') || error.details.variable === undefined) throw error;
    const { variable } = error.details;
    // The library's message starts with the model id (a sub-model's may differ from --model).
    const modelId = /^(\S+) has no API key/.exec(error.message)?.[1] ?? 'The model';
    throw new RlmError({
      code: 'model.auth',
      message: `${modelId} has no API key: ${variable} is not set in the environment rlm mcp was started with. Set it there (the env of the client's MCP server entry), or start rlm mcp with --model <another model id> (--model testkit:needle-finder runs offline).`,
      details: error.details,
      cause: error,
    });
  }
}

async function mcpAction(
  options: McpCommandOptions & Record<string, unknown>,
  { io, engine }: McpCommandDeps,
): Promise<ExitCode> {
  if (io.stdio === undefined) {
    throw new RlmError({
      code: 'cli.not_available',
      message:
        'rlm mcp needs the process’s standard input and output, which this embedding does not give.',
      details: { feature: 'mcp' },
    });
  }
  const resolved = resolveRunConfig(options, io);
  const { config, sources } = resolved;
  // llm_query without sampling: the sub-model, else a root model the user chose (never the default).
  const subModelId = config.subModel ?? (sources.model === 'default' ? undefined : config.model);
  // Drivers, tool modules and the trajectory directory are checked before the first request.
  const inputs = await prepareRunInputs({ ...options, context: [] }, io, resolved);
  const roots = (options.root ?? []).map((root) => resolve(io.cwd, root));
  const { callerChoicesOf, serveStdio } = await import('@rlm/mcp');
  // The user's own settings; a client's choices only go on top of them, within --allow-model.
  const settings = cliRunSettings(config);
  const runQuery = async (request: RlmQueryRequest) =>
    withCliKeyHint(
      engine.run({
        ...inputs.request,
        settings: applyCallerChoices(settings, callerChoicesOf(request), {
          allowedModels: config.allowModels,
          source: 'rlm_query arguments',
        }),
        contexts: [request.context],
        runId: randomUUID(),
        query: request.query,
        signal: request.signal,
        onEvent: request.onEvent,
      }),
    );
  const { input, output } = io.stdio;
  const rlm = await serveStdio({
    input,
    output,
    // The session's notices (a refused message, its end) go to the CLI's stderr, not the process's.
    log: (line) => io.stderr.write(`${line}\n`),
    runQuery,
    subModel: subModelId === undefined ? undefined : lazyModel(subModelId, io),
    // The session's own blocks and sub-calls are recorded beside the runs, as `<id>.jsonl`.
    sessionTrajectory: { dir: inputs.request.trajectoryDir },
    // One local user: runs of earlier sessions stay readable as rlm://runs/{id}, as rlm trace reads them.
    earlierRunsDir: inputs.request.trajectoryDir,
    cwd: io.cwd,
    roots,
    maxContextBytes: config.maxContextBytes,
    exclude: config.exclude,
    ...(config.blockTimeoutMs === undefined
      ? {}
      : { repl: { blockTimeoutMs: config.blockTimeoutMs } }),
  });
  // Calls in flight get an answer that says why they stopped, not silence.
  const stopInterrupt = io.onInterrupt(
    () => void rlm.shutdown('rlm mcp was interrupted (Ctrl-C)').finally(() => rlm.close()),
  );
  try {
    io.stderr.write(
      `rlm mcp: serving over stdio (model ${config.model}${config.allowModels.length > 0 ? `; a client may also choose ${config.allowModels.join(', ')}` : ''}; roots: the client's, else ${io.cwd}${roots.length > 0 ? `; plus ${roots.join(', ')}` : ''})\n` +
        `rlm mcp: this session's REPL work (once it loads a context or runs a block) is recorded as ${join(inputs.request.trajectoryDir, `${rlm.recordId}.jsonl`)} (rlm trace ${rlm.recordId})\n`,
    );
    await rlm.closed;
  } finally {
    stopInterrupt();
    await rlm.close();
  }
  return EXIT_CODES.answered;
}
