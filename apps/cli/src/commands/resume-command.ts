import { RlmError } from '@rlm/protocol';
import type { Command } from 'commander';

/**
 * `rlm resume RUN_ID`. The executor does not expose resuming from a checkpoint yet, so this
 * says so plainly instead of pretending; it exists so the command tree and its help are stable.
 */
export function registerResumeCommand(program: Command): void {
  program
    .command('resume')
    .description('continue an interrupted run (not available yet)')
    .argument('<run-id>', 'the id of the interrupted run')
    .option('--debug', 'show stack traces on errors')
    .addHelpText(
      'after',
      `
Examples:
  $ rlm resume 4f1c2a9e-…   # once the executor supports checkpoints`,
    )
    .action((runId: string) => {
      throw new RlmError({
        code: 'cli.not_available',
        message: `Cannot resume run ${runId}: resuming is not available yet in this version of @rlm/executor; start the run again with rlm run.`,
        details: { feature: 'resume' },
      });
    });
}
