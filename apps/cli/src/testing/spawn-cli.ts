import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built binary: tests run what users run. */
export const BIN_PATH = fileURLToPath(new URL('../../dist/bin.js', import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface SpawnCliOptions {
  cwd: string;
  /** Added to a clean environment (only PATH and the isolated XDG dirs are inherited). */
  env?: Record<string, string>;
  /** Written to stdin, which is then closed. */
  input?: string;
  /** Called once with the child, e.g. to send SIGINT when stderr shows progress. */
  onSpawn?(child: ChildProcess): void;
  /** Kills the child after this long; generous because the machine is shared. @default 60_000 */
  timeoutMs?: number;
  /**
   * Runs the child without the capabilities that let root read any file (through util-linux's
   * `setpriv`), so a permission test means the same as root as for anyone else. Switching to
   * another user instead would fail in a checkout under a directory only root may enter.
   */
  withoutFileOverride?: boolean;
}

/** A scratch home for one test: its own cwd, config dir and data dir, removed by `dispose`. */
export interface Sandbox {
  dir: string;
  env: Record<string, string>;
  dispose(): void;
}

/** Creates a temporary directory with isolated XDG config and data dirs. */
export function createSandbox(): Sandbox {
  const dir = mkdtempSync(join(tmpdir(), 'rlm-cli-'));
  return {
    dir,
    env: {
      HOME: dir,
      XDG_CONFIG_HOME: join(dir, '.config'),
      XDG_DATA_HOME: join(dir, '.data'),
    },
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}

// Dropped from the bounding and inheritable sets, the two capabilities are gone after exec even
// for root, who still enters its own directories through their owner permissions.
const DROP_FILE_OVERRIDE = [
  'setpriv',
  '--bounding-set=-dac_override,-dac_read_search',
  '--inh-caps=-all',
  '--',
];

/** Runs `node dist/bin.js …args` and collects its output. */
export function spawnCli(args: readonly string[], options: SpawnCliOptions): Promise<CliResult> {
  const { cwd, env = {}, input, onSpawn, timeoutMs = 60_000, withoutFileOverride } = options;
  const command = [process.execPath, BIN_PATH, ...args];
  const [file, ...argv] = withoutFileOverride ? [...DROP_FILE_OVERRIDE, ...command] : command;
  return new Promise((resolve, reject) => {
    const child = spawn(file as string, argv, {
      cwd,
      env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    if (input === undefined) child.stdin.end();
    else child.stdin.end(input);
    onSpawn?.(child);
  });
}
