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

const jobs = {
  // The main job (README Quickstart, `npm start`). For now the protocol demo; when `rlm run` works
  // offline on a fresh clone (a testkit model, no API key), point this at it, e.g.
  // ['--filter', '@rlm/cli', 'exec', 'node', 'dist/bin.js', 'run', …], and update the README's
  // Quickstart paragraph. `.ci/run` runs `npm start`, so it must succeed with no network and no stdin.
  start: () => ['--filter', '@rlm/protocol', 'run', 'demo'],
  test: () => ['turbo', 'run', 'test', ...rest],
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
process.exit(pnpm(jobs[job]()));
