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

// With a provider key (or a model chosen through RLM_MODEL), the argument-less main job is a real
// run against that provider; otherwise the offline demo above, with a note on how to go live.
const LIVE_DEMO = [
  'run',
  'What does this project do? Name its packages.',
  '--context',
  join(root, 'README.md'),
];
const live = Boolean(process.env.ANTHROPIC_API_KEY || process.env.RLM_MODEL);

function defaultRun() {
  if (live) return LIVE_DEMO;
  console.error(
    'workspace.mjs: no ANTHROPIC_API_KEY or RLM_MODEL set, so this is the offline demo ' +
      '(a scripted policy model). For a real run set ANTHROPIC_API_KEY, or point RLM_MODEL at a ' +
      'local OpenAI-compatible server: RLM_MODEL=openai-compatible/llama3@http://127.0.0.1:11434/v1',
  );
  return OFFLINE_DEMO;
}

const jobs = {
  // The main job (README Quickstart, `npm start`): one `rlm run`. With arguments they go to the CLI
  // (`npm start -- run "query" --context file`); without, `defaultRun()`.
  start: () => [join(root, 'apps/cli/dist/bin.js'), ...(rest.length > 0 ? rest : defaultRun())],
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
