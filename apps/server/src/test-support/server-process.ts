import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';

const PACKAGE_DIR = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);

/** Where `compileServer` writes, beside dist/ (so a concurrent build never races with a test). */
const BUILD_DIR = join(PACKAGE_DIR, '.test-build');
/** Held while one test file compiles; the others wait for it, then find nothing left to emit. */
const LOCK = join(BUILD_DIR, '.lock');

/**
 * Compiles the server into `<package>/.test-build` and returns the path of its `bin.js`. Every
 * process test shares this one build: the files run in parallel, so each takes a lock, and the
 * incremental compile after the first has nothing to do (a full compile is tens of seconds of CPU).
 */
export async function compileServer(): Promise<string> {
  await mkdir(BUILD_DIR, { recursive: true });
  const release = await lock(LOCK);
  try {
    await writeFile(
      join(BUILD_DIR, 'tsconfig.json'),
      JSON.stringify({
        extends: '../tsconfig.build.json',
        compilerOptions: {
          rootDir: '../src',
          outDir: '.',
          composite: false,
          // The package's build writes only declarations (its JavaScript is bundled); these
          // process tests run tsc's own per-file output instead.
          emitDeclarationOnly: false,
          declaration: false,
          declarationMap: false,
          incremental: true,
          tsBuildInfoFile: './.tsbuildinfo',
        },
        include: ['../src'],
        // Browser code is typed against the DOM (tsconfig.browser.json) and embedded as strings.
        exclude: ['../src/**/*.test.ts', '../src/test-support/**', '../src/ui/browser/**'],
      }),
    );
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    await run(process.execPath, [tsc, '-p', join(BUILD_DIR, 'tsconfig.json')], {
      cwd: PACKAGE_DIR,
    });
  } finally {
    await release();
  }
  return join(BUILD_DIR, 'bin.js');
}

/**
 * Takes the lock file at `path` (holding this process's pid), waiting while another live process
 * holds it; a lock left by a process that died (a test run interrupted mid-compile) is taken over.
 */
async function lock(path: string): Promise<() => Promise<void>> {
  for (;;) {
    try {
      await writeFile(path, String(process.pid), { flag: 'wx' });
      return () => rm(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = Number(await readFile(path, 'utf8').catch(() => ''));
    if (Number.isInteger(holder) && holder > 0 && !isAlive(holder)) {
      await rm(path, { force: true });
      continue;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * `node <args>` as `spawn`/`execFile` arguments; with `umask`, started through `sh` with that
 * umask (a worker thread cannot set its own process's umask).
 */
export function nodeCommand(args: readonly string[], umask?: number): [string, string[]] {
  if (umask === undefined) return [process.execPath, [...args]];
  return [
    'sh',
    [
      '-c',
      `umask ${umask.toString(8).padStart(3, '0')} && exec "$0" "$@"`,
      process.execPath,
      ...args,
    ],
  ];
}

/** One server process: its URL, replica id, every JSON log line it wrote, and its exit. */
export interface ServerProcess {
  child: ChildProcess;
  url: string;
  replicaId: string;
  logs: Record<string, unknown>[];
  exit: Promise<number | null>;
}

/**
 * Starts `bin` (from `compileServer`) with `env` as an operator would, and resolves once it logs
 * that it listens; rejects with the end of its stderr if it exits first.
 */
export async function startServerProcess(
  bin: string,
  env: NodeJS.ProcessEnv,
  { umask }: { umask?: number } = {},
): Promise<ServerProcess> {
  const child = spawn(...nodeCommand([bin], umask), { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const logs: Record<string, unknown>[] = [];
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4_000);
  });
  const listening = await new Promise<Record<string, unknown>>((resolve, reject) => {
    let buffer = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        if (line.trim() === '') continue;
        const entry = JSON.parse(line) as Record<string, unknown>;
        logs.push(entry);
        if (entry['msg'] === 'listening') resolve(entry);
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited early with ${code}:\n${stderr}`)));
  });
  return {
    child,
    url: String(listening['url']),
    replicaId: String(listening['replica']),
    logs,
    exit,
  };
}
