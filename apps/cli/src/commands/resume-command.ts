import { RlmError } from '@rlm/protocol';
import type { Command } from 'commander';
import { CONFIG_KEYS } from '../config/config-keys.js';
import type { PartialCliConfig } from '../config/config-schema.js';
import type { ResolvedConfig } from '../config/resolve-config.js';
import type { ExitCode } from '../exit-code.js';
import { addMcpOptions, mcpResumeFlags, readMcpOptions, readMcpPrefix } from './mcp-options.js';
import { recordedCliConfig } from './recorded-config.js';
import { resumeCommandLine } from './resume-command-line.js';
import type { RunCommandDeps } from './run-command.js';
import { prepareRunInputs, reportRun, resolveRunConfig, runStorePathOf } from './run-inputs.js';
import { addRunOptions, type RunInputOptions } from './run-options.js';
import { resolveRunReference } from './run-reference.js';
import { runWithProgress } from './run-with-progress.js';

/**
 * `rlm resume RUN_ID --context …`: continues a run that was killed, cancelled or stopped by a
 * budget, from the checkpoint after its last finished turn, with its recorded configuration
 * (flags override it) and the same output and exit codes as `rlm run`.
 */
export function registerResumeCommand(program: Command, deps: RunCommandDeps): void {
  const command = program
    .command('resume')
    .description('continue an interrupted run from its last finished turn')
    .argument(
      '<run-id>',
      'the id of the interrupted run (its trajectory file is <run-id>.jsonl), or last / last~N',
    );
  addRunOptions(command);
  addMcpOptions(command);
  command.addHelpText(
    'after',
    `
rlm run records every run in the run store (--run-store, default <data dir>/runs.db) with its
configuration and a checkpoint after each turn. A run that was killed, cancelled or stopped by a
budget continues from its last finished turn; the turn that was interrupted runs again. The run's
model, limits, budgets and escalation ladder are reused unless a flag overrides them (a run a
budget stopped needs a larger one). The context is not stored: pass the same --context arguments as the original run.
Checks come in this order: the run, then the context, then credentials. Its trajectory file is
continued. Exit codes as for rlm run. MCP servers are not recorded: pass the same --mcp, --mcp-prefix,
--mcp-url and --mcp-header flags again (the printed resume command has them, header values as …). A run started with --output-schema keeps its schema (its checkpoint has it).

Examples:
  $ rlm resume 4f1c2a9e-… --context notes.txt
  $ rlm resume 4f1c2a9e-… -c q1.md -c q2.md --max-tokens 200000`,
  );
  command.action(async (runId: string, options: RunInputOptions & Record<string, unknown>) => {
    deps.setExitCode(await resumeAction(runId, options, deps));
  });
}

async function resumeAction(
  runId: string,
  options: RunInputOptions & Record<string, unknown>,
  { io, engine }: RunCommandDeps,
): Promise<ExitCode> {
  if (runId.trim() === '') {
    throw new RlmError({
      code: 'cli.usage',
      message:
        'The run id is empty; pass the id of the interrupted run, e.g. rlm resume 4f1c2a9e-….',
      details: { option: 'run-id' },
    });
  }
  // In order: the run (needs only the store), its context (read, then checked against the
  // checkpoint), and only then credentials (when the engine resolves the models).
  const flagsOnly = resolveRunConfig(options, io);
  const storePath = runStorePathOf(flagsOnly.config, io);
  const id = await resolveRunReference(runId.trim(), io, storePath);
  const stored = await engine.findResumable(id, storePath);
  const recorded = recordedCliConfig(stored.config);
  const resolved = resolveRunConfig(options, io, recorded);
  if (stored.status === 'budget_exceeded') assertBudgetRaised(id, { recorded, resolved });
  const mcpServers = await readMcpOptions(options);
  const mcpPrefix = readMcpPrefix(options);
  const inputs = await prepareRunInputs(options, io, resolved);
  if (!inputs.quiet) for (const note of inputs.notes) io.stderr.write(`${note}\n`);
  const resumeCommand = resumeCommandLine({
    runId: id,
    contexts: options.context ?? [],
    ...(typeof options['runStore'] === 'string' ? { runStore: options['runStore'] } : {}),
    flags: mcpResumeFlags(options),
  });
  const completion = await runWithProgress(
    io,
    {
      progress: inputs.progress,
      resumeCommand,
      checkpointed: true,
      repl: inputs.request.config.repl,
    },
    (signal, onEvent) =>
      engine.resume({
        ...inputs.request,
        mcpServers,
        ...(mcpPrefix === undefined ? {} : { mcpPrefix }),
        runId: id,
        signal,
        onEvent,
      }),
  );
  return reportRun(completion, { inputs, io, options });
}

/** The budget flags, and the keys they set. */
const BUDGET_KEYS = ['maxTokens', 'maxCostUsd', 'maxSubcalls', 'maxConsecutiveErrors'] as const;

/**
 * A run a budget stopped would stop again at once with the same budget: it resumes only when a
 * flag raises one of its budgets.
 */
function assertBudgetRaised(
  runId: string,
  { recorded, resolved }: { recorded: PartialCliConfig; resolved: ResolvedConfig },
): void {
  const raised = BUDGET_KEYS.some((key) => {
    const now = resolved.config[key];
    const before = recorded[key];
    return (
      resolved.sources[key].startsWith('flag') &&
      now !== undefined &&
      (before === undefined || now > before)
    );
  });
  if (raised) return;
  const flags = BUDGET_KEYS.map((key) => CONFIG_KEYS[key].flag).join(', ');
  throw new RlmError({
    code: 'cli.usage',
    message: `Run ${runId} was stopped by its budget; resume it with a larger one (${flags}), e.g. rlm resume ${runId} … --max-tokens <more>.`,
    details: { option: 'budget' },
  });
}
