#!/usr/bin/env node
// Entry point for the README's Quickstart: works with only Node and npm on the machine.
// It obtains the pnpm version pinned in package.json (through npx, so no global install),
// installs from the lockfile, builds, and then runs the requested job. Each set-up step says what
// it does and how long it took, on stderr: stdout carries only the job's output.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildProgress } from './workspace/build-progress.mjs';
import { formatElapsed, runStep, say } from './workspace/run-step.mjs';
import { inputFingerprint, setupIsCurrent, writeSetupStamp } from './workspace/setup-stamp.mjs';
import { builtDependencies, runInLanes, testOrder, turboTest } from './workspace/test-lanes.mjs';

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
// biome-ignore lint/suspicious/noUndeclaredEnvVars: read by the quickstart, which turbo never runs.
const live = Boolean(process.env.ANTHROPIC_API_KEY || process.env.RLM_MODEL);

function defaultRun() {
  if (live) return LIVE_DEMO;
  say(
    'no ANTHROPIC_API_KEY or RLM_MODEL set, so this is the offline demo ' +
      '(a scripted policy model). For a real run set ANTHROPIC_API_KEY, or point RLM_MODEL at a ' +
      'local OpenAI-compatible server: RLM_MODEL=openai-compatible/llama3@http://127.0.0.1:11434/v1',
  );
  return OFFLINE_DEMO;
}

// `setup` only: what `npm start` and `npm test` do first (.ci/run runs it beside the system
// packages' installation, so the test job then finds it current).
const JOBS = ['start', 'test', 'setup'];
if (!JOBS.includes(job)) {
  say(`unknown job "${job}"; expected one of ${JOBS.join(', ')}`);
  process.exit(2);
}

// pnpm is not assumed to be installed: npx fetches the exact pinned version once and caches it.
const npxEnv = {
  ...process.env,
  npm_config_loglevel: 'error',
  npm_config_update_notifier: 'false',
};
const pnpm = (args) => ({ command: 'npx', args: ['--yes', packageManager, ...args], env: npxEnv });

// Set-up shared by every job: pnpm itself, the exact dependencies from the lockfile, every package
// built. Compiling better-sqlite3's SQLite from source (its prebuilt download is unreachable here)
// takes a minute of one core and the TypeScript build half a minute of another: the install
// leaves the compile for later (--ignore-scripts), and it runs beside the build and then beside
// the first test suites, the ones that load no native addon (workspace/test-lanes.mjs).
const setupSteps = [
  { name: 'pnpm', what: `${packageManager} through npx (downloaded once)`, ...pnpm(['--version']) },
  {
    name: 'install',
    what: 'dependencies from the lockfile (pnpm install --frozen-lockfile --ignore-scripts; minutes on a first run)',
    // On a terminal pnpm's own reporter shows what it resolves and downloads.
    liveProgress: true,
    ...pnpm(['install', '--frozen-lockfile', '--ignore-scripts']),
  },
  {
    name: 'native-addons',
    what: 'the install scripts the install left pending (pnpm rebuild -r --pending: better-sqlite3 compiles SQLite on a first run)',
    ...pnpm(['rebuild', '-r', '--pending']),
  },
  {
    name: 'build',
    what: 'every package (pnpm build: scripts/workspace/build-all.mjs)',
    progress: ({ startedAt }) => buildProgress(root, { startedAt }),
    command: process.execPath,
    args: [join(root, 'scripts/workspace/build-all.mjs')],
  },
];

/**
 * Runs the set-up (or finds it current) up to a finished build. Resolves to `nativeReady`, a promise
 * of the native addons' status, which the set-up's stamp waits for too (`undefined`: nothing to
 * build); wrapped, so that awaiting the set-up does not wait for it.
 */
async function setUp() {
  const started = Date.now();
  // A clone whose lockfile, sources and build outputs are as the last set-up left them needs none
  // of it again: the job starts at once instead of after 10-50 s of pnpm, install and a build.
  if (setupIsCurrent(root, inputFingerprint(root, packageManager))) {
    say(
      `set-up skipped: nothing changed since the last one (checked in ${formatElapsed(Date.now() - started)})`,
    );
    return { nativeReady: undefined };
  }
  const [tool, install, nativeAddons, build] = setupSteps.map((step, index) => ({
    ...step,
    label: `[${index + 1}/${setupSteps.length}] ${step.name}`,
    cwd: root,
  }));
  for (const step of [tool, install]) {
    const status = await runStep(step);
    if (status !== 0) process.exit(status);
  }
  // After install: pnpm rewrites its own record of the tree, which the stamp also covers.
  const inputs = inputFingerprint(root, packageManager);
  const native = runStep(nativeAddons);
  const built = await runStep(build);
  if (built !== 0) {
    await native;
    process.exit(built);
  }
  const nativeReady = native.then((status) => {
    if (status !== 0) return status;
    writeSetupStamp(root, packageManager, inputs);
    say(`set-up done in ${formatElapsed(Date.now() - started)}`);
    return 0;
  });
  return { nativeReady };
}

const { nativeReady } = await setUp();
/** Waits for the native addons; a failure to build them ends this process with their status. */
async function untilNativeReady() {
  const status = (await nativeReady) ?? 0;
  if (status !== 0) process.exit(status);
}

if (job === 'setup') {
  await untilNativeReady();
  process.exit(0);
}

if (job === 'start') {
  // The main job (README Quickstart, `npm start`): one `rlm run`. With arguments they go to the
  // CLI (`npm start -- run "query" --context file`); without, `defaultRun()`. It runs where the
  // user typed `npm start` (npm sets INIT_CWD), so relative --context paths mean what they expect.
  // Ctrl-C reaches the CLI too (same process group): it cancels the run and prints the partial
  // answer, so this process waits for it instead of dying first.
  process.on('SIGINT', () => {});
  await untilNativeReady();
  const args = rest.length > 0 ? rest : defaultRun();
  const result = spawnSync(process.execPath, [join(root, 'apps/cli/dist/bin.js'), ...args], {
    // biome-ignore lint/suspicious/noUndeclaredEnvVars: set by npm for this script, which turbo never runs.
    cwd: process.env.INIT_CWD ?? process.cwd(),
    stdio: 'inherit',
  });
  process.exit(result.status ?? 130);
}

// `npm test`: every package's tests through turbo, one package's run per CPU core (on small,
// shared machines running every package's Vitest at once turns generous timeouts into
// failures), the longest suites first (workspace/test-lanes.mjs), then the READMEs' runnable
// blocks (scripts/docs-test.mjs), which run `npm start` and so must not run inside turbo's own
// tasks. Arguments go to one turbo run (`npm test -- --filter @rlm/cli`) and leave the docs out.
// The docs test's own unit tests, and the check of the root README's capability × door table.
const DOCS_TEST_UNIT_TESTS = [
  ...['readme-blocks.test.mjs', 'door-table.test.mjs'].map((file) =>
    join(root, 'scripts/docs-test', file),
  ),
  ...[
    'setup-stamp.test.mjs',
    'build-progress.test.mjs',
    'build-all.test.mjs',
    'test-lanes.test.mjs',
  ].map((file) => join(root, 'scripts/workspace', file)),
];
const testSteps = [
  // --only: the set-up has just built every package (or found it built), so turbo need not run
  // each package's build again before its tests (the lanes pass it to each package's run too).
  rest.length > 0
    ? { name: 'tests', ...pnpm(['turbo', 'run', 'test', '--only', '--concurrency=100%', ...rest]) }
    : { name: 'tests', lanes: availableParallelism(), ...pnpm([]) },
  ...(rest.length > 0
    ? []
    : [
        { name: 'docs-test', command: process.execPath, args: ['--test', ...DOCS_TEST_UNIT_TESTS] },
        { name: 'docs', command: process.execPath, args: [join(root, 'scripts/docs-test.mjs')] },
      ]),
];
for (const [index, step] of testSteps.entries()) {
  const { name, command, args, env = process.env, lanes } = step;
  const label = `[${index + 1}/${testSteps.length}] ${name}`;
  const stepStarted = Date.now();
  if (lanes !== undefined) {
    const suites = testOrder(root, builtDependencies(root));
    say(
      `${label}: pnpm turbo run test --only --filter <package>, ${lanes} at a time, longest first (those loading a native addon once it is built): ${suites.map((suite) => suite.name).join(', ')} …`,
    );
    const failed = await runInLanes(suites, {
      lanes,
      start: (suite) => turboTest(root, step, suite),
      nativeReady,
    });
    const elapsed = formatElapsed(Date.now() - stepStarted);
    if (failed.length > 0) {
      say(`${label}: failed (${failed.join(', ')}) after ${elapsed}`);
      process.exit(1);
    }
    say(`${label}: passed in ${elapsed}`);
    continue;
  }
  await untilNativeReady();
  say(
    `${label}: ${[command === 'npx' ? 'pnpm' : 'node', ...args.slice(command === 'npx' ? 2 : 0)].join(' ')} …`,
  );
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env });
  const elapsed = formatElapsed(Date.now() - stepStarted);
  if (result.status !== 0) {
    say(`${label}: failed (${result.signal ?? `exit ${result.status}`}) after ${elapsed}`);
    process.exit(result.status ?? 1);
  }
  say(`${label}: passed in ${elapsed}`);
}
