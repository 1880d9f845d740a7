import { spawn } from 'node:child_process';

export interface RunBashOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Keep only this many characters from the end of stderr (for long installs); all by default. */
  stderrTailChars?: number;
}

export interface BashResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `script` with `bash -c` as a reader would in a shell, collecting its output. */
export function runBash(
  script: string,
  { cwd, env, stderrTailChars }: RunBashOptions,
): Promise<BashResult> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once('exit', (code) =>
      resolve({
        code,
        stdout,
        stderr: stderrTailChars === undefined ? stderr : stderr.slice(-stderrTailChars),
      }),
    );
  });
}
