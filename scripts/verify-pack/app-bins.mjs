// What a user does with the apps' bins, run through node_modules/.bin in each app's own project.
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { CheckFailed, readJson, run } from './run-checked.mjs';

/** A scratch environment for an installed bin: its own home, config and data directories. */
function binEnv(project) {
  const home = join(project, 'home');
  mkdirSync(home, { recursive: true });
  return {
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.data'),
    XDG_CACHE_HOME: join(home, '.cache'),
  };
}

/**
 * Makes the installed better-sqlite3 loadable. Its compiled addon depends only on its own version,
 * Node's ABI and the platform, so when the workspace's install (same machine, same Node) already
 * compiled the very version npm installed here, that addon is copied instead of compiling SQLite
 * a second time (about two minutes of one core); any other version is rebuilt by npm, from source
 * when no prebuilt binary is reachable. `--rebuild-native` always rebuilds. Returns what it did.
 */
async function prepareBetterSqlite3({ project, root, rebuildNative }) {
  const installed = join(project, 'node_modules/better-sqlite3');
  const { version } = readJson(join(installed, 'package.json'));
  const addon = join('build', 'Release', 'better_sqlite3.node');
  let workspaceCopy;
  try {
    const fromCli = createRequire(join(root, 'apps/cli/package.json'));
    workspaceCopy = dirname(fromCli.resolve('better-sqlite3/package.json'));
  } catch {
    workspaceCopy = undefined;
  }
  if (
    !rebuildNative &&
    workspaceCopy !== undefined &&
    readJson(join(workspaceCopy, 'package.json')).version === version &&
    existsSync(join(workspaceCopy, addon))
  ) {
    mkdirSync(join(installed, 'build', 'Release'), { recursive: true });
    copyFileSync(join(workspaceCopy, addon), join(installed, addon));
    return `better-sqlite3 ${version}: the workspace's build of the same version`;
  }
  const started = Date.now();
  await run('npm', ['rebuild', 'better-sqlite3'], {
    cwd: project,
    label:
      '@rlm/cli: npm rebuild better-sqlite3 (from source when no prebuilt binary is reachable)',
  });
  return `better-sqlite3 ${version} built in ${((Date.now() - started) / 1000).toFixed(0)}s`;
}

/** `rlm --help`, then an offline `rlm run` over the README's haystack; returns what passed. */
export async function checkCliBin({ project, root, rebuildNative = false }) {
  const rlm = join(project, 'node_modules/.bin/rlm');
  const env = binEnv(project);
  // Answered by the bundle's entry before it loads anything else: must still be the package's own.
  const version = await run(rlm, ['--version'], {
    cwd: project,
    env,
    label: '@rlm/cli: rlm --version',
  });
  const { version: packed } = readJson(join(project, 'node_modules/@rlm/cli/package.json'));
  if (version.trim() !== packed) {
    throw new CheckFailed(
      `@rlm/cli: rlm --version printed ${JSON.stringify(version)}, expected ${packed}`,
    );
  }
  const help = await run(rlm, ['--help'], { cwd: project, env, label: '@rlm/cli: rlm --help' });
  if (!help.startsWith('Usage: rlm')) {
    throw new CheckFailed(`@rlm/cli: rlm --help printed no usage:\n${help}`);
  }
  // `rlm run` keeps every run in a SQLite store: its one native dependency must load.
  const native = await prepareBetterSqlite3({ project, root, rebuildNative });
  const haystack = join(project, 'haystack.txt');
  copyFileSync(join(root, 'apps/cli/examples/haystack.txt'), haystack);
  const needle = /magic number is (\d+)/.exec(readFileSync(haystack, 'utf8'))?.[1];
  const query = ['run', 'What is the magic number?', '--context', 'haystack.txt'];
  const stdout = await run(rlm, [...query, '--model', 'testkit:needle-finder', '--json'], {
    cwd: project,
    env,
    label: '@rlm/cli: rlm run … --model testkit:needle-finder --json',
  });
  const result = JSON.parse(stdout);
  if (result.status !== 'completed' || result.answer !== needle) {
    throw new CheckFailed(
      `@rlm/cli: rlm run answered ${JSON.stringify(result.answer)} (${result.status}), expected ${needle}`,
    );
  }
  return [
    `rlm --version prints ${packed}`,
    'rlm --help prints its usage',
    `rlm run --model testkit:needle-finder answers ${needle} (${native})`,
  ];
}

/** Starts the bin in argv[1], waits for its `listening` log line, fetches /healthz, sends SIGTERM. */
const SERVE_ONCE = `
import { spawn } from 'node:child_process';
const child = spawn(process.argv[1], [], { stdio: ['ignore', 'pipe', 'inherit'] });
let output = '';
const url = await new Promise((resolve, reject) => {
  child.stdout.on('data', (chunk) => {
    output += chunk;
    const match = /"url":"(http[^"]+)"/.exec(output);
    if (match) resolve(match[1]);
  });
  child.on('exit', (code) => reject(new Error('exited early (' + code + '): ' + output)));
});
const health = await fetch(url + '/healthz').then((response) => response.json());
if (health.status !== 'ok') throw new Error('/healthz answered ' + JSON.stringify(health));
child.kill('SIGTERM');
const code = await new Promise((resolve) => child.on('exit', resolve));
if (code !== 0) throw new Error('exit ' + code + ' after SIGTERM');
`;

/** `rlm-server --help`, then serving with the in-memory store (no native build needed). */
export async function checkServerBin({ project }) {
  const bin = join(project, 'node_modules/.bin/rlm-server');
  const env = binEnv(project);
  const help = await run(bin, ['--help'], {
    cwd: project,
    env,
    label: '@rlm/server: rlm-server --help',
  });
  if (!help.startsWith('usage: rlm-server')) {
    throw new CheckFailed(`@rlm/server: rlm-server --help printed no usage:\n${help}`);
  }
  await run(process.execPath, ['--input-type=module', '-e', SERVE_ONCE, bin], {
    cwd: project,
    env: {
      ...env,
      RLM_SERVER_DB: ':memory:',
      RLM_SERVER_PORT: '0',
      RLM_SERVER_HOST: '127.0.0.1',
    },
    label: '@rlm/server: rlm-server serving /healthz, then stopping on SIGTERM',
  });
  return ['rlm-server --help prints its usage', 'rlm-server serves /healthz and stops on SIGTERM'];
}
