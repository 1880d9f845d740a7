import { Command } from 'commander';
import type { CliIo } from './cli-io.js';
import { registerCacheCommand } from './commands/cache-command.js';
import { registerCompletionCommand } from './commands/completion-command.js';
import { registerConfigCommand } from './commands/config-command.js';
import { registerEvalCommand } from './commands/eval-command.js';
import { registerMcpCommand } from './commands/mcp-command.js';
import { registerPromptsCommand } from './commands/prompts-command.js';
import { registerReplayCommand } from './commands/replay-command.js';
import { registerResumeCommand } from './commands/resume-command.js';
import { registerRunCommand } from './commands/run-command.js';
import { registerRunsCommand } from './commands/runs-command.js';
import { registerTraceCommand } from './commands/trace-command.js';
import type { RunEngine } from './engine/run-engine.js';
import type { ExitCode } from './exit-code.js';

export interface CreateProgramOptions {
  io: CliIo;
  engine: RunEngine;
  version: string;
  /** Receives each command's exit code (commander actions cannot return one). */
  setExitCode(code: ExitCode): void;
}

/** Builds the `rlm` command tree. Output goes through `io`; errors are thrown, never exit the process. */
export function createProgram({ io, engine, version, setExitCode }: CreateProgramOptions): Command {
  const program = new Command('rlm')
    .description(
      'Recursive Language Models: answer questions over contexts far larger than a model window',
    )
    .version(version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .helpCommand('help [command]', 'show help for a command')
    .exitOverride()
    // A command's options come after its name (`rlm eval --out x compare a b` keeps them apart).
    .enablePositionalOptions()
    .showHelpAfterError('(add --help for usage)')
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      outputError: (text, write) => write(`rlm: ${text.replace(/^error: /, '')}`),
    })
    .addHelpText(
      'after',
      `
Examples:
  $ rlm run "What does this project do?" --context README.md
  $ rlm run "Find the magic number" --context notes.txt --model testkit:needle-finder
  $ rlm trace ~/.local/share/rlm/trajectories/<run-id>.jsonl --html run.html
  $ claude mcp add rlm -- rlm mcp --model anthropic/claude-sonnet-5-5
  $ rlm config`,
    );
  registerRunCommand(program, { io, engine, setExitCode });
  registerRunsCommand(program, { io, setExitCode });
  registerTraceCommand(program, { io, setExitCode });
  registerReplayCommand(program, { io, setExitCode });
  registerResumeCommand(program, { io, engine, setExitCode });
  registerPromptsCommand(program, { io, setExitCode });
  registerEvalCommand(program, { io, setExitCode });
  registerMcpCommand(program, { io, engine, setExitCode });
  registerConfigCommand(program, { io, setExitCode });
  registerCacheCommand(program, { io, setExitCode });
  registerCompletionCommand(program, { io, setExitCode });
  for (const command of program.commands) {
    command.exitOverride().showHelpAfterError(`(add --help for usage of rlm ${command.name()})`);
    command.configureOutput(program.configureOutput());
  }
  return program;
}
