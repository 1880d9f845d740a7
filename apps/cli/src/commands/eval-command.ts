import type { Command } from 'commander';
import type { CliIo } from '../cli-io.js';
import type { ExitCode } from '../exit-code.js';

/**
 * `rlm eval …`: everything after `eval` goes to @rlm/eval's `runEvalCommand`, which owns its flags,
 * help text, reports and exit codes. Ctrl-C stops it through an AbortSignal (it writes the report
 * of what finished); a second Ctrl-C exits at once.
 */
export function registerEvalCommand(
  program: Command,
  { io, setExitCode }: { io: CliIo; setExitCode(code: ExitCode): void },
): void {
  program
    .command('eval')
    .description(
      'run benchmarks with @rlm/eval and compare results (rlm eval --help for its options)',
    )
    .argument('[args...]', 'arguments for @rlm/eval')
    .helpOption(false)
    .allowUnknownOption()
    .passThroughOptions()
    .addHelpText(
      'after',
      `
Examples:
  $ rlm eval --benchmark sniah --sizes 8k,32k --model testkit:needle-finder
  $ rlm eval compare eval-results/a eval-results/b`,
    )
    .action(async (args: string[]) => {
      // Loaded on first use, like the executor: benchmarks are not needed by the other commands.
      const { runEvalCommand } = await import('@rlm/eval');
      const controller = new AbortController();
      let interrupts = 0;
      const stopListening = io.onInterrupt(() => {
        interrupts += 1;
        if (interrupts > 1) io.exitNow(130);
        controller.abort();
      });
      try {
        const code = await runEvalCommand(args, {
          stdout: io.stdout,
          stderr: io.stderr,
          env: io.env,
          cwd: io.cwd,
          signal: controller.signal,
        });
        setExitCode(toExitCode(code));
      } finally {
        stopListening();
      }
    });
}

function toExitCode(code: number): ExitCode {
  return code === 0 || code === 2 || code === 130 ? code : 1;
}
