import { RlmError } from '@rlm/protocol';
import type { Command } from 'commander';
import type { CliIo } from '../cli-io.js';
import type { ExitCode } from '../exit-code.js';
import { readTrajectoryFile } from '../trajectory/read-trajectory-file.js';
import { findTrajectory } from './find-trajectory.js';

/** `rlm replay PATH`: re-runs a recorded trajectory offline and says whether it reproduces. */
export function registerReplayCommand(
  program: Command,
  { io }: { io: CliIo; setExitCode(code: ExitCode): void },
): void {
  program
    .command('replay')
    .description(
      're-run a trajectory offline (recorded model answers) and check that it reproduces',
    )
    .argument('<trajectory>', 'a .jsonl trajectory file, or a run id in the trajectory directory')
    .option('--debug', 'show stack traces on errors')
    .addHelpText(
      'after',
      `
Exit codes: 0 reproduces, 1 diverges (the first differing step is printed).

Examples:
  $ rlm replay run.jsonl
  $ rlm replay 4f1c2a9e-…`,
    )
    .action(async (reference: string) => {
      await readTrajectoryFile(findTrajectory(reference, io));
      throw new RlmError({
        code: 'cli.not_available',
        message:
          'rlm replay is not available yet: @rlm/executor does not export replay in this build.',
        details: { feature: 'replay' },
      });
    });
}
