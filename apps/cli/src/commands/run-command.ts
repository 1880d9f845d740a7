import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { RlmError } from '@rlm/protocol';
import type { Command } from 'commander';
import type { CliIo } from '../cli-io.js';
import { formatContextReport } from '../context/format-context-report.js';
import type { RunEngine } from '../engine/run-engine.js';
import type { ExitCode } from '../exit-code.js';
import { checkRunModels } from './check-run-models.js';
import { addMcpOptions, mcpResumeFlags, readMcpOptions, readMcpPrefix } from './mcp-options.js';
import { addOutputSchemaOption, readOutputSchemaOption } from './output-schema-option.js';
import { quoteArgument } from './quote-argument.js';
import { resumeCommandLine } from './resume-command-line.js';
import { prepareRunInputs, reportRun, resolveRunConfig } from './run-inputs.js';
import { addRunOptions, type RunInputOptions } from './run-options.js';
import { runWithProgress } from './run-with-progress.js';

export interface RunCommandDeps {
  io: CliIo;
  engine: RunEngine;
  setExitCode(code: ExitCode): void;
}

/** `rlm run QUERY [--context PATH|-]…`: one RLM run, answer on stdout, progress on stderr. */
export function registerRunCommand(program: Command, deps: RunCommandDeps): void {
  const command = program
    .command('run')
    .description(
      'answer a query over files, directories, globs or stdin with a Recursive Language Model',
    )
    .argument('<query>', 'the question or task');
  addRunOptions(command);
  addMcpOptions(command);
  addOutputSchemaOption(command);
  command.addHelpText(
    'after',
    `
The answer goes to stdout; progress goes to stderr (a live tree on a terminal, plain lines otherwise).
Exit codes: 0 answered, 1 internal error, 2 usage error, 3 no final answer (iteration limit),
4 budget or time limit, 5 model provider failed, 6 missing or refused API key, 130 cancelled.
Only an answer goes to stdout. Ctrl-C cancels and shows the rlm resume command that continues
the run; a second Ctrl-C exits at once.

Examples:
  $ rlm run "What does this project do?" --context README.md
  $ rlm run "List every TODO with its file" --context src --include "**/*.ts"
  $ git log -p | rlm run "Summarise last week's changes" --context -
  $ rlm run "Compare the two reports" -c q1.md -c q2.md --max-cost 0.50
  $ rlm run "Where is the needle?" -c haystack.txt --model openai-compatible/llama3@http://127.0.0.1:11434/v1
  $ rlm run "Find the magic number" -c notes.txt --model testkit:needle-finder   # offline demo
  $ rlm run "Which orders failed checksum?" -c orders.json --tool ./checksum-tools.mjs
  $ rlm run "…" -c big.log --no-tools   # bare REPL: no grep/find_all/… helpers, no tool modules
  $ rlm run "…" -c data.json --json | jq .usage
  $ rlm run "Extract the invoice" -c invoice.txt --output-schema invoice.schema.json   # JSON answer
  $ rlm run "Which issues mention crashes?" -c log.txt --mcp "npx -y @acme/issues-mcp"
  $ rlm run "…" -c notes.md --mcp-url https://tools.example.com/mcp --mcp-header "authorization: Bearer $TOKEN"`,
  );
  // Extra arguments are refused in the action, which can say what they probably were.
  command.allowExcessArguments(true);
  command.action(
    async (
      query: string,
      options: RunInputOptions & Record<string, unknown>,
      self: Command,
    ): Promise<void> => {
      assertOneQuery(self.args, deps.io);
      deps.setExitCode(await runAction(query, options, deps));
    },
  );
}

/**
 * `rlm run "q" notes.txt` means a context (`--context` was left out); `rlm run what is this` means
 * an unquoted query. Say which, with the command that works.
 * @throws RlmError `cli.usage`
 */
function assertOneQuery(args: readonly string[], io: CliIo): void {
  const extra = args.slice(1);
  if (extra.length === 0) return;
  const paths = extra.filter((arg) => existsSync(resolve(io.cwd, arg)));
  const fix =
    paths.length > 0
      ? `to read ${paths.join(', ')} as context, pass ${paths.map((path) => `--context ${quoteArgument(path)}`).join(' ')}`
      : `quote a query of several words: rlm run ${quoteArgument(args.join(' '))}`;
  throw new RlmError({
    code: 'cli.usage',
    message: `rlm run takes one query, but got ${args.length} arguments (${args.map(quoteArgument).join(' ')}); ${fix}.`,
    details: { option: 'query' },
  });
}

async function runAction(
  query: string,
  options: RunInputOptions & Record<string, unknown>,
  { io, engine }: RunCommandDeps,
): Promise<ExitCode> {
  if (query.trim() === '') {
    throw new RlmError({
      code: 'cli.usage',
      message:
        'The query is empty; pass the question as the first argument, e.g. rlm run "What is this?" --context notes.md.',
      details: { option: 'query' },
    });
  }
  // Checked before any context is read or any model is called.
  const output = await readOutputSchemaOption(options, io);
  const mcpServers = await readMcpOptions(options);
  const mcpPrefix = readMcpPrefix(options);
  const resolved = resolveRunConfig(options, io);
  await checkRunModels(resolved.config, io.env);
  const inputs = await prepareRunInputs(options, io, resolved);
  if (!inputs.quiet) {
    for (const line of [...formatContextReport(inputs.loaded), ...inputs.notes]) {
      io.stderr.write(`${line}\n`);
    }
  }
  const runId = randomUUID();
  // Solver and coordinator runs alike keep checkpoints (a coordinator's background tasks too).
  const resumeCommand = resumeCommandLine({
    runId,
    contexts: options.context ?? [],
    ...(typeof options['runStore'] === 'string' ? { runStore: options['runStore'] } : {}),
    flags: mcpResumeFlags(options),
  });
  const completion = await runWithProgress(
    io,
    { progress: inputs.progress, resumeCommand, repl: inputs.request.config.repl },
    (signal, onEvent) =>
      engine.run({
        ...inputs.request,
        ...(output === undefined ? {} : { output }),
        mcpServers,
        ...(mcpPrefix === undefined ? {} : { mcpPrefix }),
        runId,
        query,
        signal,
        onEvent,
      }),
  );
  return reportRun(completion, { inputs, io, options });
}
