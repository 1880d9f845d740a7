import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CliIo, OutputStream } from '../cli-io.js';
import { createExecutorEngine } from '../engine/executor-engine.js';
import { runCli } from '../run-cli.js';
import type { CliResult, SpawnCliOptions } from './spawn-cli.js';

const { version } = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
) as { version: string };

/**
 * What `runCliInProcess` takes: `spawnCli`'s options, minus those only a real process has, and
 * the CLI's clock (a test that lists runs by their start time sets it).
 */
export type InProcessCliOptions = Pick<SpawnCliOptions, 'cwd' | 'env' | 'input'> & {
  now?: () => number;
};

/**
 * Runs `rlm …args` inside the test's own process through `runCli`, with the same environment,
 * standard input and output capture as `spawnCli`, and resolves to the same result. Starting
 * Node and loading the CLI costs seconds per call on a loaded machine, so tests whose subject is
 * a command's behaviour (not start-up, signals, the stdio transport or the bin itself) use this;
 * those that are about the process keep `spawnCli`.
 */
export async function runCliInProcess(
  args: readonly string[],
  options: InProcessCliOptions,
): Promise<CliResult> {
  const { io, stdout, stderr } = inProcessIo(options);
  const code = await runCli(args, io, { engine: createExecutorEngine(), version });
  return { code, signal: null, stdout: stdout.text(), stderr: stderr.text() };
}

/**
 * The `CliIo` `runCliInProcess` gives `runCli`, and what its two output streams collected so far.
 * With `stdio`, standard output writes go into `stdio.output`, as in the real process, where the
 * protocol `rlm mcp` speaks and stray prints share one pipe.
 */
export function inProcessIo({
  cwd,
  env = {},
  input,
  now = () => Date.now(),
  stdio,
}: InProcessCliOptions & { stdio?: NonNullable<CliIo['stdio']> }): {
  io: CliIo;
  stdout: { text(): string };
  stderr: { text(): string };
} {
  const stdout = collector(stdio?.output);
  const stderr = collector();
  // The same clean environment spawnCli gives the child.
  const childEnv: Record<string, string> = {
    PATH: process.env['PATH'] ?? '',
    NO_COLOR: '1',
    ...env,
  };
  const io: CliIo = {
    stdout,
    stderr,
    ...(stdio === undefined ? {} : { stdio }),
    // An ended pipe, as spawnCli closes the child's stdin after writing `input`.
    readStdin: async () => input ?? '',
    stdinIsTTY: false,
    env: childEnv,
    cwd,
    paths: platformPaths(childEnv),
    onInterrupt: () => () => {},
    exitNow(code) {
      throw new Error(`runCliInProcess: the CLI asked to exit at once (${code})`);
    },
    now,
  };
  return { io, stdout, stderr };
}

/** The version the built bin reports, for in-process runs of `runCli`. */
export const CLI_VERSION = version;

/** An output stream that keeps what is written, like a pipe read to its end (and passes it on to `pipe`). */
function collector(pipe?: { write(chunk: string): unknown }): OutputStream & { text(): string } {
  let text = '';
  return {
    write(chunk: string) {
      text += chunk;
      pipe?.write(chunk);
      return true;
    },
    text: () => text,
  };
}

/** The config and data dirs `env-paths` gives the real bin on Linux, read from `env`, not the process's. */
function platformPaths(env: Record<string, string>): CliIo['paths'] {
  const home = env['HOME'] ?? '';
  return {
    config: join(env['XDG_CONFIG_HOME'] ?? join(home, '.config'), 'rlm'),
    data: join(env['XDG_DATA_HOME'] ?? join(home, '.local', 'share'), 'rlm'),
  };
}
