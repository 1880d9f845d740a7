#!/usr/bin/env node
// Entry point for the README's Quickstart: works with only Node and npm on the machine.
// It obtains the pnpm version pinned in package.json (through npx, so no global install),
// installs from the lockfile, builds, and then runs the requested job.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { packageManager } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const [job, ...rest] = process.argv.slice(2);

const OFFLINE_DEMO = [
  'run',
  'What is the magic number?',
  '--context',
  join(root, 'apps/cli/examples/haystack.txt'),
  '--model',
  'testkit:needle-finder',
];

const jobs = {
  // The main job (README Quickstart, `npm start`): one `rlm run`. With arguments they go to the CLI
  // (`npm start -- run "query" --context file`); without, an offline demo (a @rlm/testkit policy
  // model: no key, no network, no stdin), which is what `.ci/run` runs.
  start: () => [join(root, 'apps/cli/dist/bin.js'), ...(rest.length > 0 ? rest : OFFLINE_DEMO)],
  // One package's test run per CPU core: on small, shared machines running every package's Vitest
  // at once oversubscribes the CPU and turns generous timeouts into failures.
  test: () => ['turbo', 'run', 'test', '--concurrency=100%', ...rest],
};

if (!(job in jobs)) {
  console.error(
    `workspace.mjs: unknown job "${job}"; expected one of ${Object.keys(jobs).join(', ')}`,
  );
  process.exit(2);
}

function pnpm(args, { quiet = false } = {}) {
  // pnpm is not assumed to be installed: npx fetches the exact pinned version once and caches it.
  const result = spawnSync('npx', ['--yes', packageManager, ...args], {
    cwd: root,
    // Quiet steps keep their output and show it only if they fail (tsc and turbo report on stdout).
    stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    encoding: 'utf8',
    env: { ...process.env, npm_config_loglevel: 'error' },
  });
  if (result.error) {
    console.error(`workspace.mjs: could not run npx (is npm installed?): ${result.error.message}`);
    process.exit(1);
  }
  if (quiet && result.status !== 0) {
    process.stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}`);
    console.error(`workspace.mjs: \`pnpm ${args.join(' ')}\` failed (exit ${result.status})`);
  }
  return result.status ?? 1;
}

// Set-up shared by every job: the exact dependencies from the lockfile, then every package built.
const steps = [
  ['install', '--frozen-lockfile', '--reporter=silent'],
  ['turbo', 'run', 'build', '--output-logs=errors-only'],
];
for (const step of steps) {
  const status = pnpm(step, { quiet: job === 'start' });
  if (status !== 0) process.exit(status);
}
if (job === 'start') {
  // Run the CLI where the user typed `npm start` (npm sets INIT_CWD), so relative --context paths
  // mean what they expect. Ctrl-C reaches the CLI too (same process group): it cancels the run and
  // prints the partial answer, so this process waits for it instead of dying first.
  process.on('SIGINT', () => {});
  const result = spawnSync(process.execPath, jobs.start(), {
    // biome-ignore lint/suspicious/noUndeclaredEnvVars: set by npm for this script, which turbo never runs.
    cwd: process.env.INIT_CWD ?? process.cwd(),
    stdio: 'inherit',
  });
  process.exit(result.status ?? 130);
}
process.exit(pnpm(jobs[job]()));
