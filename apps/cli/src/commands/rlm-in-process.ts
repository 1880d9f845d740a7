import { join } from 'node:path';
import type { CliIo } from '../cli-io.js';
import { createExecutorEngine } from '../engine/executor-engine.js';
import type { ExitCode } from '../exit-code.js';
import { runCli } from '../run-cli.js';

export interface InProcessResult {
  code: ExitCode;
  stdout: string;
  stderr: string;
}

/**
 * Runs `rlm …args` in this process with the real engine, in `dir` with its own config and data
 * directories (`dir/config`, `dir/data`): tests of commands pay no process start-up.
 */
export async function rlmInProcess(
  args: readonly string[],
  { dir, now = () => Date.now() }: { dir: string; now?: () => number },
): Promise<InProcessResult> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    readStdin: async () => '',
    env: {},
    cwd: dir,
    paths: { config: join(dir, 'config'), data: join(dir, 'data') },
    onInterrupt: () => () => {},
    exitNow: (code) => {
      throw new Error(`exit ${code}`);
    },
    now,
  };
  const code = await runCli(args, io, { engine: createExecutorEngine(), version: '0.0.0' });
  return { code, stdout, stderr };
}
