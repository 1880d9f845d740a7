import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import type { CliIo } from './cli-io.js';
import { createProgram } from './create-program.js';
import type { RunEngine } from './engine/run-engine.js';

/** No command runs here: the program is only built, to read its flags. */
const unused = () => Promise.reject(new Error('not run in this test'));
const engine: RunEngine = { run: unused, findResumable: unused, resume: unused };
const io: CliIo = {
  stdout: { write: () => true },
  stderr: { write: () => true },
  readStdin: async () => '',
  env: {},
  cwd: '/',
  paths: { config: '/nonexistent/config', data: '/nonexistent/data' },
  onInterrupt: () => () => {},
  exitNow: (code) => {
    throw new Error(`exit ${code}`);
  },
  now: () => 0,
};

function commandAt(path: string): Command {
  const program = createProgram({ io, engine, version: '0.0.0', setExitCode: () => {} });
  let command: Command | undefined = program;
  for (const name of path.split(' ')) {
    command = command?.commands.find((child) => child.name() === name);
  }
  if (command === undefined) throw new Error(`no command ${path}`);
  return command;
}

/** The long flags help shows (and the shell completes) for a command. */
function visibleFlags(path: string): string[] {
  return commandAt(path).options.flatMap((option) =>
    option.hidden || option.long === undefined ? [] : [option.long],
  );
}

/** Concepts more than one command has, each with the one spelling every command uses. */
const SHARED_FLAGS = [
  '--model',
  '--sub-model',
  '--max-depth',
  '--max-iterations',
  '--mode',
  '--driver',
  '--max-cost',
  '--progress',
];

/** Old spellings of shared concepts: accepted by `rlm eval` for one release, shown nowhere. */
const OLD_SPELLINGS = ['--prompt-mode', '--drivers', '--max-cost-usd'];

describe('the rlm command tree', () => {
  it('spells each shared flag the same in run, resume, config and eval', () => {
    for (const path of ['run', 'resume', 'config', 'eval']) {
      expect(visibleFlags(path), path).toEqual(expect.arrayContaining(SHARED_FLAGS));
    }
    // run, resume and config take every configuration key, with the same flags (but the keys
    // only `rlm mcp` reads, which `config` shows and `mcp` takes).
    const mcpOnly = ['--allow-model'];
    const configFlags = visibleFlags('config').filter(
      (flag) => flag !== '--json' && !mcpOnly.includes(flag),
    );
    expect(visibleFlags('mcp')).toEqual(expect.arrayContaining(mcpOnly));
    expect(visibleFlags('run')).not.toEqual(expect.arrayContaining(mcpOnly));
    expect(visibleFlags('run')).toEqual(expect.arrayContaining(configFlags));
    expect(visibleFlags('resume')).toEqual(expect.arrayContaining(configFlags));
    // A resumed run keeps the answer schema its checkpoint recorded, so only run takes one.
    const runOnly = ['--output-schema'];
    expect(
      visibleFlags('run')
        .filter((flag) => !runOnly.includes(flag))
        .sort(),
    ).toEqual(visibleFlags('resume').sort());
    expect(visibleFlags('resume')).not.toEqual(expect.arrayContaining(runOnly));
    expect(visibleFlags('prompts show')).toEqual(
      expect.arrayContaining(['--model', '--max-depth', '--mode', '--driver']),
    );
  });

  it('shows no old spelling in any command, and keeps the ones eval had as hidden aliases', () => {
    const program = createProgram({ io, engine, version: '0.0.0', setExitCode: () => {} });
    const paths = program.commands.flatMap((command) => [
      command.name(),
      ...command.commands.map((child) => `${command.name()} ${child.name()}`),
    ]);
    for (const path of paths) {
      for (const old of OLD_SPELLINGS) expect(visibleFlags(path), path).not.toContain(old);
    }
    const hidden = commandAt('eval').options.filter((option) => option.hidden);
    expect(hidden.map((option) => option.long).sort()).toEqual([...OLD_SPELLINGS].sort());
  });
});
