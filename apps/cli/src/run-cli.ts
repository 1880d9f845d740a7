import { CommanderError } from 'commander';
import type { CliIo } from './cli-io.js';
import { createProgram } from './create-program.js';
import { describeError } from './describe-error.js';
import type { RunEngine } from './engine/run-engine.js';
import { EXIT_CODES, type ExitCode } from './exit-code.js';

export interface RunCliOptions {
  /** Runs `rlm run` requests. */
  engine: RunEngine;
  /** Reported by `--version`. */
  version: string;
}

/**
 * Runs the `rlm` command line and resolves to its exit code. All input and output goes through
 * `io`, so it can run in-process (tests, embedding) as well as from `bin.ts`.
 *
 * @example
 * process.exitCode = await runCli(process.argv.slice(2), createNodeIo(), { engine, version });
 */
export async function runCli(
  argv: readonly string[],
  io: CliIo,
  { engine, version }: RunCliOptions,
): Promise<ExitCode> {
  let exitCode: ExitCode = EXIT_CODES.answered;
  const program = createProgram({
    io,
    engine,
    version,
    setExitCode: (code) => {
      exitCode = code;
    },
  });
  if (argv.length === 0) {
    program.outputHelp({ error: true });
    return EXIT_CODES.usage;
  }
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version are successful exits; every other parse failure is a usage error.
      const shown = ['commander.helpDisplayed', 'commander.version', 'commander.help'];
      return shown.includes(error.code) && error.exitCode === 0
        ? EXIT_CODES.answered
        : EXIT_CODES.usage;
    }
    const description = describeError(error);
    io.stderr.write(`rlm: ${description.message}\n`);
    if (argv.includes('--debug')) io.stderr.write(`${formatStack(error)}\n`);
    return description.exitCode;
  }
}

function formatStack(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  while (current !== undefined && parts.length < 5) {
    parts.push(current instanceof Error ? (current.stack ?? current.message) : String(current));
    current = current instanceof Error ? current.cause : undefined;
    if (current !== undefined) parts.push('caused by:');
  }
  return parts.join('\n');
}
