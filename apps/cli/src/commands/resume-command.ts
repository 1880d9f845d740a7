import { RlmError } from '@rlm/protocol';
import type { Command } from 'commander';
import type { ExitCode } from '../exit-code.js';
import { collect } from './collect-option.js';
import { addConfigOptions } from './config-options.js';
import type { RunCommandDeps } from './run-command.js';
import { prepareRunInputs, type RunInputOptions, reportRun } from './run-inputs.js';
import { runWithProgress } from './run-with-progress.js';

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
  const inputs = await prepareRunInputs(options, io);
  const completion = await runWithProgress(io, inputs.quiet, (signal, onEvent) =>
    engine.resume({ ...inputs.request, runId: runId.trim(), signal, onEvent }),
  );
  return reportRun(completion, { inputs, io });
}
