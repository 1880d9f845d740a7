import { RlmError } from '@rlm/protocol';
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
      if (shown.includes(error.code) && error.exitCode === 0) return EXIT_CODES.answered;
      // commander has written its message to stderr already.
      const message = error.message.replace(/^error: /, '');
      writeJsonError(io, argv, { code: 'cli.usage', message, exitCode: EXIT_CODES.usage });
      return EXIT_CODES.usage;
    }
    const description = describeError(error);
    io.stderr.write(`rlm: ${description.message}\n`);
    if (argv.includes('--debug')) io.stderr.write(`${formatStack(error)}\n`);
    writeJsonError(io, argv, {
      code: RlmError.is(error) ? error.code : 'internal',
      message: description.message,
      exitCode: description.exitCode,
    });
    return description.exitCode;
  }
}

/**
 * Under `--json`, a failure before any result also goes to stdout as `{ "error": … }`: a script
 * reading stdout (`rlm run … --json | jq`) would otherwise get nothing and carry on.
 */
function writeJsonError(
  io: CliIo,
  argv: readonly string[],
  error: { code: string; message: string; exitCode: ExitCode },
): void {
  const end = argv.indexOf('--');
  const flags = end < 0 ? argv : argv.slice(0, end);
  if (!flags.includes('--json')) return;
  io.stdout.write(`${JSON.stringify({ error }, null, 2)}\n`);
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
