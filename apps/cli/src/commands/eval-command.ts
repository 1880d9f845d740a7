import { RlmError } from '@rlm/protocol';
import type { Command } from 'commander';

/**
 * `rlm eval …`: forwards to @rlm/eval once that package provides a command entry point; until
 * then it says so, with the arguments it would have forwarded.
 */
export function registerEvalCommand(program: Command): void {
  program
    .command('eval')
    .description('run benchmarks with @rlm/eval (not available yet)')
    .argument('[args...]', 'arguments forwarded to @rlm/eval')
    .allowUnknownOption()
    .helpOption('-h, --help', 'show help for eval')
    .addHelpText(
      'after',
      `
Examples:
  $ rlm eval --help`,
    )
    .action(() => {
      throw new RlmError({
        code: 'cli.not_available',
        message:
          'rlm eval is not available yet: @rlm/eval has no command entry point in this build; run its package scripts directly (pnpm --filter @rlm/eval …).',
        details: { feature: 'eval' },
      });
    });
}
