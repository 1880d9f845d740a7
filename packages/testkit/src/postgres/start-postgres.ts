import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  chownSync,
  constants,
  existsSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** A Postgres server this process started; `url` reaches its `postgres` database as superuser. */
export interface RunningPostgres {
  url: string;
  /** The PostgreSQL major version that runs, e.g. `15`. */
  version: string;
  stop(): Promise<void>;
}

export interface StartPostgresOptions {
  /** A directory holding `initdb` and `postgres`; found among the installed versions otherwise. */
  binDir?: string;
}

const SUPERUSER = 'rlm';

/**
 * Runs the server (`$2…`) under a shell that stops it (fast shutdown) and deletes its directory
 * (`$1`) once its standard input closes, which happens when `stop()` ends it or when the test
 * process dies in any way (killed, crashed, its output pipe closed): no server outlives its run.
 * The shell exits with the server's status, so a server that fails to start is seen at once; its
 * directory is then kept, for the next attempt on another port.
 */
const GUARD_SCRIPT = `
base=$1; shift
exec 3<&0
"$@" 3<&- &
server=$!
{ read -r _ <&3; : > "$base/stop-requested"; kill -INT "$server" 2>/dev/null; } &
wait "$server"
status=$?
kill "$!" 2>/dev/null
if [ -e "$base/stop-requested" ]; then rm -rf "$base"; fi
exit "$status"
`;
const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 20_000;

/**
 * Starts a throwaway Postgres the way an operator would: Debian's `postgresql` binaries,
 * `initdb` into a fresh directory under the system temp directory, the server on 127.0.0.1 at a
 * free port (its socket in that directory too), trust authentication for local tests only, and
 * durability switched off because the data is deleted afterwards. Postgres refuses to run as
 * root, so as root both run as the `postgres` user (or `nobody`), who owns the directory.
 *
 * @throws Error saying why the server could not be started (no binaries, initdb failed…)
 */
export async function startPostgres({
  binDir,
}: StartPostgresOptions = {}): Promise<RunningPostgres> {
  const bin = binDir ?? findBinDir();
  const owner = serverUser();
  const base = mkdtempSync(join(reachableTempDir(owner !== undefined), 'rlm-pg-'));
  try {
    if (owner !== undefined) chownSync(base, owner.uid, owner.gid);
    const data = join(base, 'data');
    execFileSync(
      join(bin, 'initdb'),
      ['-D', data, '-U', SUPERUSER, '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync'],
      { ...spawnOptions(owner, base), stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const version = execFileSync(join(bin, 'postgres'), ['--version'], { encoding: 'utf8' });
    // A port found free can be taken before the server binds it; a fresh one is tried then.
    let lastError: unknown;
    for (let attempt = 0; attempt < 3; attempt++) {
      const port = await freePort();
      const server = spawn(
        '/bin/sh',
        [
          '-c',
          GUARD_SCRIPT,
          'rlm-postgres-guard',
          base,
          join(bin, 'postgres'),
          '-D',
          data,
          '-p',
          String(port),
          '-k',
          base,
          '-c',
          'listen_addresses=127.0.0.1',
          '-c',
          'fsync=off',
          '-c',
          'synchronous_commit=off',
          '-c',
          'full_page_writes=off',
        ],
        { ...spawnOptions(owner, base), stdio: ['pipe', 'ignore', 'pipe'] },
      );
      const url = `postgres://${SUPERUSER}@127.0.0.1:${port}/postgres`;
      try {
        await waitUntilReady(server, { bin, port });
        return {
          url,
          version: /(\d+)(\.\d+)?/.exec(version)?.[1] ?? version.trim(),
          stop: async () => {
            await stopServer(server);
            rmSync(base, { recursive: true, force: true });
          },
        };
      } catch (error) {
        lastError = error;
        await stopServer(server);
      }
    }
    throw lastError;
  } catch (error) {
    rmSync(base, { recursive: true, force: true });
    throw error instanceof Error && 'stderr' in error && error.stderr
      ? new Error(`${error.message}\n${String(error.stderr)}`)
      : error;
  }
}

/** The newest `/usr/lib/postgresql/<major>/bin` (Debian's layout), else the `PATH`'s `initdb`. */
function findBinDir(): string {
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root)
    ? readdirSync(root)
        .filter((name) => /^\d+$/.test(name) && existsSync(join(root, name, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (majors[0] !== undefined) return join(root, majors[0], 'bin');
  try {
    return dirname(execFileSync('which', ['initdb'], { encoding: 'utf8' }).trim());
  } catch {
    throw new Error(
      'no PostgreSQL server binaries (initdb) in /usr/lib/postgresql/*/bin or on the PATH; install Debian\'s "postgresql" package',
    );
  }
}

interface ServerUser {
  uid: number;
  gid: number;
}

/** Postgres will not run as root: then the `postgres` account (from Debian's package) or `nobody`. */
function serverUser(): ServerUser | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    try {
      const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }));
      const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }));
      return { uid, gid };
    } catch {
      // No such account; try the next one.
    }
  }
  throw new Error('running as root, and neither a "postgres" nor a "nobody" account exists');
}

/**
 * The system temp directory, or `/tmp` when another user could not reach it (a TMPDIR inside a
 * mode-0700 home, say): the server's user must traverse every directory above its data.
 */
function reachableTempDir(forAnotherUser: boolean): string {
  const candidate = tmpdir();
  if (!forAnotherUser || traversableByOthers(candidate)) return candidate;
  if (traversableByOthers('/tmp')) return '/tmp';
  throw new Error(`neither ${candidate} nor /tmp can be traversed by the Postgres server's user`);
}

function traversableByOthers(path: string): boolean {
  for (let current = path; ; current = dirname(current)) {
    // biome-ignore lint/suspicious/noBitwiseOperators: a permission bit
    if ((statSync(current).mode & constants.S_IXOTH) === 0) return false;
    if (dirname(current) === current) return true;
  }
}

function spawnOptions(owner: ServerUser | undefined, home: string) {
  return {
    ...(owner === undefined ? {} : { uid: owner.uid, gid: owner.gid }),
    // A minimal environment: C messages, and a HOME the server's user can read.
    env: { PATH: '/usr/bin:/bin', LC_ALL: 'C', HOME: home },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Resolves once the server accepts connections (asked with its own `pg_isready`, so this package
 * needs no database driver); rejects with the server's output if it exits first.
 */
async function waitUntilReady(
  server: ChildProcess,
  { bin, port }: { bin: string; port: number },
): Promise<void> {
  let output = '';
  server.stderr?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4_000);
  });
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (server.exitCode !== null || server.signalCode !== null) {
      throw new Error(
        `postgres exited (${server.exitCode ?? server.signalCode}) while starting:\n${output}`,
      );
    }
    if (await isReady({ bin, port })) return;
    await sleep(100);
  }
  throw new Error(`postgres did not accept connections within ${READY_TIMEOUT_MS} ms:\n${output}`);
}

/** `pg_isready` exits 0 once the server accepts connections. */
function isReady({ bin, port }: { bin: string; port: number }): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = spawn(
      join(bin, 'pg_isready'),
      ['-q', '-h', '127.0.0.1', '-p', String(port), '-U', SUPERUSER, '-d', 'postgres'],
      { stdio: 'ignore' },
    );
    probe.once('error', () => resolve(false));
    probe.once('exit', (code) => resolve(code === 0));
  });
}

/**
 * Closes the guard's standard input, so it stops the server (fast shutdown: open connections are
 * closed, not waited for); kills the guard if that takes longer than `STOP_TIMEOUT_MS`.
 */
async function stopServer(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  server.stdin?.end();
  const timer = setTimeout(() => server.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}
