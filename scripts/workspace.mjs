#!/usr/bin/env node
// Entry point for the README's Quickstart: works with only Node and npm on the machine.
// It obtains the pnpm version pinned in package.json (through npx, so no global install),
// installs from the lockfile, builds, and then runs the requested job.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { packageManager } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const [job, ...rest] = process.argv.slice(2);

const jobs = {
  // The main job: one RLM run through the CLI when it exists, else the protocol demo.
  start: () =>
    existsSync(join(root, 'apps/cli/package.json'))
      ? ['--filter', '@rlm/cli', 'exec', 'node', 'dist/bin.js', ...rest]
      : ['--filter', '@rlm/protocol', 'run', 'demo'],
  test: () => ['turbo', 'run', 'test', ...rest],
};

if (!(job in jobs)) {
  console.error(
    `workspace.mjs: unknown job "${job}"; expected one of ${Object.keys(jobs).join(', ')}`,
  );
  process.exit(2);
}

function pnpm(args, options = {}) {
  // pnpm is not assumed to be installed: npx fetches the exact pinned version once and caches it.
  const result = spawnSync('npx', ['--yes', packageManager, ...args], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, npm_config_loglevel: 'error' },
    ...options,
  });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

const quiet = { stdio: ['ignore', 'ignore', 'inherit'] };
const steps = [
  ['install', '--frozen-lockfile', '--reporter=silent'],
  ['turbo', 'run', 'build', '--output-logs=errors-only'],
];
for (const step of steps) {
  const status = pnpm(step, job === 'start' ? quiet : {});
  if (status !== 0) process.exit(status);
}
process.exit(pnpm(jobs[job]()));
