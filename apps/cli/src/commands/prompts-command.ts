import { RlmError } from '@rlm/protocol';
import type { Command } from 'commander';
import type { CliIo } from '../cli-io.js';
import type { ExitCode } from '../exit-code.js';

/** `rlm prompts show`: the assembled system prompt and a section/size report. */
export function registerPromptsCommand(
  program: Command,
  _deps: { io: CliIo; setExitCode(code: ExitCode): void },
): void {
  const prompts = program
    .command('prompts')
    .description('inspect the system prompts the model sees');
  prompts
    .command('show')
    .description('print the assembled system prompt and a section/size report')
    .option('--depth <n>', 'depth of the run the prompt is for', '0')
    .option('--max-depth <n>', 'the run tree maximum depth', '1')
    .option('--mode <mode>', 'solver or coordinator', 'solver')
    .option('--driver <file>', 'a driver markdown file; repeatable')
    .option('--debug', 'show stack traces on errors')
    .action(() => {
      throw new RlmError({
        code: 'cli.not_available',
        message: 'rlm prompts show is not available yet: @rlm/prompts has not been built.',
        details: { feature: 'prompts show' },
      });
    });
}
