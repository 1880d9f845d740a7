import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { runBash } from './test-support/run-bash.js';

// The README's "Run it" steps, run as a new user would: in a copy of the checkout without
// node_modules, line by line as the README writes them, with a data directory of its own. A
// README edit that breaks the steps breaks this test. The checkout's build outputs come along, so
// the steps' `pnpm build` finds the TypeScript current and only bundles the apps again: building
// from nothing is what `npm test` did first on this checkout (on CI, a fresh clone), and doing it
// again here cost half a minute of a core for nothing more.
const README = join(import.meta.dirname, '..', 'README.md');
const REPOSITORY = join(import.meta.dirname, '..', '..', '..');
const execFileAsync = promisify(execFile);

/** The first ```sh block of the "## Run it" section, and the curl command the text follows it with. */
async function runItSteps(): Promise<{ lines: string[]; request: string }> {
  const readme = await readFile(README, 'utf8');
  const section = readme.split(/^## Run it$/m)[1]?.split(/^## /m)[0] ?? '';
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  const lines = block
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const request = /Then `(curl [^`]+)`/.exec(section)?.[1]?.replaceAll('\n', ' ') ?? '';
  return { lines, request };
}

/** Tracked and untracked-but-not-ignored files: what a fresh clone plus local edits holds. */
async function copyCheckout(target: string): Promise<void> {
  const { stdout } = await execFileAsync('git', ['ls-files', '-z', '-co', '--exclude-standard'], {
    cwd: REPOSITORY,
    maxBuffer: 64 * 1024 * 1024,
  });
  for (const path of stdout.split('\0').filter((entry) => entry !== '')) {
    await mkdir(dirname(join(target, path)), { recursive: true });
    await cp(join(REPOSITORY, path), join(target, path), { verbatimSymlinks: true }).catch(
      (error: NodeJS.ErrnoException) => {
        // A tracked file deleted in the working tree is not part of what a user would have.
        if (error.code !== 'ENOENT') throw error;
      },
    );
  }
}

/** Every package's `dist/` (with its `.tsbuildinfo`), copied after the sources so it is newer. */
async function copyBuildOutputs(target: string): Promise<void> {
  for (const group of ['packages', 'apps']) {
    for (const name of await readdir(join(REPOSITORY, group))) {
      const dist = join(REPOSITORY, group, name, 'dist');
      const exists = await stat(dist).then(
        (entry) => entry.isDirectory(),
        () => false,
      );
      if (exists) await cp(dist, join(target, group, name, 'dist'), { recursive: true });
    }
  }
}

/**
 * The pnpm store this checkout was installed from. pnpm keeps packages there by content and, for
 * those with an install script, the built result too (its side-effects cache): a copy installed
 * from it gets the same bytes as from the registry, without downloading them or compiling
 * better-sqlite3's SQLite again (minutes of one core on this machine).
 */
async function checkoutStore(): Promise<string> {
  const { packageManager } = JSON.parse(
    await readFile(join(REPOSITORY, 'package.json'), 'utf8'),
  ) as { packageManager: string };
  const { stdout } = await execFileAsync('npx', ['--yes', packageManager, 'store', 'path'], {
    cwd: REPOSITORY,
  });
  return stdout.trim();
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        resolve(typeof address === 'object' && address !== null ? address.port : 0),
      );
    });
  });
}

/** Resolves once the server logs that it listens; rejects with its output if it exits first. */
function untilListening(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('"msg":"listening"')) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the server exited (${code}):\n${output}`)));
  });
}

describe('the README "Run it" steps', () => {
  it('install, build, create a key, start the offline server and answer the documented request', {
    timeout: 1_800_000,
  }, async () => {
    const { lines, request } = await runItSteps();
    expect(lines.map((line) => line.split(' ')[0])).toEqual([
      'npx',
      'npx',
      'export',
      'node',
      'RLM_SERVER_CONFIG=apps/server/examples/offline.json',
    ]);
    // The steps choose the data directory themselves: never through XDG_DATA_HOME, which moves
    // pnpm's store too and makes `pnpm install` abort in an installed clone.
    expect(lines[2]).toMatch(/^export RLM_SERVER_DATA_DIR=\$PWD\/rlm-data\b/);
    expect(lines.join('\n')).not.toContain('XDG_DATA_HOME');
    expect(request).toContain('localhost:8787');
    const directory = await mkdtemp(join(tmpdir(), 'rlm-run-it-'));
    const checkout = join(directory, 'rlm');
    let server: ChildProcess | undefined;
    try {
      await copyCheckout(checkout);
      await copyBuildOutputs(checkout);
      // Only the environment is ours: a home inside the temp directory, the checkout's pnpm store
      // (see checkoutStore; a cache, so what is installed does not change), and a free port
      // instead of 8787 (RLM_SERVER_PORT, documented), which the request then uses. The data
      // directory is the one the steps export.
      const port = await freePort();
      const store = await checkoutStore();
      const { XDG_DATA_HOME: _xdg, ...outer } = process.env;
      const env = {
        ...outer,
        HOME: directory,
        npm_config_store_dir: store,
        RLM_SERVER_PORT: String(port),
        RLM_SERVER_DATA_DIR: '',
        RLM_SERVER_CONFIG: '',
        RLM_SERVER_DB: '',
      };
      const setup = lines.slice(0, -1);
      const prepared = await runBash(`set -e\n${setup.join('\n')}`, {
        cwd: checkout,
        env,
        stderrTailChars: 8_000,
      });
      expect(prepared.code, prepared.stderr).toBe(0);
      const printed = prepared.stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { key?: string })
        .find((entry) => entry.key !== undefined);
      expect(printed?.key).toMatch(/^rlm_/);
      // The key went where the steps said, inside the checkout.
      expect((await stat(join(checkout, 'rlm-data', 'api-keys.json'))).isFile()).toBe(true);
      server = spawn('bash', ['-c', `${lines[2]}\n${lines.at(-1) ?? ''}`], {
        cwd: checkout,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      await untilListening(server);
      const call = request
        .replace('localhost:8787', `127.0.0.1:${port}`)
        .replace('<key>', printed?.key ?? '');
      const answered = await runBash(call, { cwd: checkout, env, stderrTailChars: 8_000 });
      expect(answered.code, answered.stderr).toBe(0);
      const body = JSON.parse(answered.stdout) as { choices: { message: { content: string } }[] };
      expect(body.choices[0]?.message.content).toContain('42');
      const exited = new Promise<number | null>((resolve) => server?.once('exit', resolve));
      server.kill('SIGTERM');
      expect(await exited).toBe(0);
      server = undefined;
    } finally {
      server?.kill('SIGKILL');
      await rm(directory, { recursive: true, force: true });
    }
  });
});
