// What a user does with the apps' bins, run through node_modules/.bin in each app's own project.
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CheckFailed, run } from './run-checked.mjs';

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

/** `rlm --help`, then an offline `rlm run` over the README's haystack; returns what passed. */
export function checkCliBin({ project, root }) {
  const rlm = join(project, 'node_modules/.bin/rlm');
  const env = binEnv(project);
  const help = run(rlm, ['--help'], { cwd: project, env, label: '@rlm/cli: rlm --help' });
  if (!help.startsWith('Usage: rlm')) {
    throw new CheckFailed(`@rlm/cli: rlm --help printed no usage:\n${help}`);
  }
  // `rlm run` keeps every run in a SQLite store: build the one native dependency, as npm would.
  const rebuildStarted = Date.now();
  run('npm', ['rebuild', 'better-sqlite3'], {
    cwd: project,
    label:
      '@rlm/cli: npm rebuild better-sqlite3 (from source when no prebuilt binary is reachable)',
  });
  const rebuildSeconds = ((Date.now() - rebuildStarted) / 1000).toFixed(0);
  const haystack = join(project, 'haystack.txt');
  copyFileSync(join(root, 'apps/cli/examples/haystack.txt'), haystack);
  const needle = /magic number is (\d+)/.exec(readFileSync(haystack, 'utf8'))?.[1];
  const query = ['run', 'What is the magic number?', '--context', 'haystack.txt'];
  const stdout = run(rlm, [...query, '--model', 'testkit:needle-finder', '--json'], {
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
    'rlm --help prints its usage',
    `rlm run --model testkit:needle-finder answers ${needle} (better-sqlite3 built in ${rebuildSeconds}s)`,
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
export function checkServerBin({ project }) {
  const bin = join(project, 'node_modules/.bin/rlm-server');
  const env = binEnv(project);
  const help = run(bin, ['--help'], { cwd: project, env, label: '@rlm/server: rlm-server --help' });
  if (!help.startsWith('usage: rlm-server')) {
    throw new CheckFailed(`@rlm/server: rlm-server --help printed no usage:\n${help}`);
  }
  run(process.execPath, ['--input-type=module', '-e', SERVE_ONCE, bin], {
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
