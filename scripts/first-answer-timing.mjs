#!/usr/bin/env node
// Measures what a new user waits for: a fresh clone of this repository, then the README's
// `npm start` (pnpm through npx, install, build, the offline demo run) up to its answer. Prints
// each step's time, the machine (cores, load average) and the answer. The README quotes its result.
//
//   node scripts/first-answer-timing.mjs [--cold] [--ref REF] [--keep]
//
// --cold  a new machine: empty npm cache (so npx downloads pnpm), empty pnpm store and metadata
//         cache (every package downloaded, better-sqlite3 compiled); without it, the caches of
//         this machine are used, as for a second clone.
// --ref   the commit to clone (default HEAD; uncommitted changes are not part of a clone).
// --keep  leaves the clone on disk.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatElapsed } from './workspace/run-step.mjs';
import { shellEnv } from './workspace/shell-env.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const cold = argv.includes('--cold');
const keep = argv.includes('--keep');
const ref = argv.includes('--ref') ? argv[argv.indexOf('--ref') + 1] : 'HEAD';

const load = () =>
  loadavg()
    .map((value) => value.toFixed(1))
    .join(' ');

function git(args, cwd) {
  const result = spawnSync('git', args, { cwd, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr.trim()}`);
  return result.stdout.trim();
}

/** Runs `npm start` in `cwd`, timestamping each line of workspace.mjs and the answer. */
function timedStart(cwd, env) {
  return new Promise((resolve) => {
    const started = Date.now();
    const marks = [];
    const child = spawn('npm', ['start'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      if (!marks.some((mark) => mark.name === 'answer')) {
        marks.push({ name: 'answer', at: Date.now() - started });
      }
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      process.stderr.write(chunk);
    });
    child.once('close', (code) =>
      resolve({ code, stdout, stderr, marks, totalMs: Date.now() - started }),
    );
  });
}

/** The per-step durations workspace.mjs reported (`[2/3] install: done in 1m04s`). */
function reportedSteps(stderr) {
  return [...stderr.matchAll(/^workspace\.mjs: \[\d+\/\d+\] (\S+): done in (\S+)$/gm)].map(
    ([, name, elapsed]) => ({ name, elapsed }),
  );
}

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'rlm-first-answer-'));
  const clone = join(work, 'rlm');
  // A new user's: no rlm config file, no runs, no trajectories of their own yet.
  const env = {
    ...shellEnv(process.env),
    XDG_CONFIG_HOME: join(work, 'config'),
    RLM_TRAJECTORY_DIR: join(work, 'trajectories'),
    RLM_RUN_STORE: join(work, 'runs.db'),
  };
  // The offline demo, as for a user without a key.
  delete env.ANTHROPIC_API_KEY;
  delete env.RLM_MODEL;
  if (cold) {
    for (const dir of ['npm-cache', 'pnpm-store', 'cache']) mkdirSync(join(work, dir));
    env.npm_config_cache = join(work, 'npm-cache');
    env.npm_config_store_dir = join(work, 'pnpm-store');
    env.XDG_CACHE_HOME = join(work, 'cache');
  }
  const cpuModel = cpus()[0]?.model ?? 'unknown CPU';
  console.log(
    `first-answer-timing: ${new Date().toISOString()}, ${cold ? 'cold caches' : "this machine's caches"}, ` +
      `${availableParallelism()} cores (${cpuModel}), node ${process.version}, load average ${load()} (1, 5, 15 min)`,
  );
  try {
    const commit = git(['rev-parse', ref], root);
    const cloneStarted = Date.now();
    git(['clone', '--quiet', '--no-local', root, clone], work);
    git(['checkout', '--quiet', '--detach', commit], clone);
    const cloneMs = Date.now() - cloneStarted;
    const result = await timedStart(clone, env);
    const steps = reportedSteps(result.stderr);
    const answerAt = result.marks.find((mark) => mark.name === 'answer')?.at;
    console.log(`\nfirst-answer-timing: commit ${commit.slice(0, 12)}, load average now ${load()}`);
    console.log(`  clone                 ${formatElapsed(cloneMs)}`);
    for (const { name, elapsed } of steps)
      console.log(`  npm start: ${name.padEnd(10)} ${elapsed}`);
    console.log(
      `  npm start: answer     ${answerAt === undefined ? 'none' : formatElapsed(answerAt)} after it started`,
    );
    console.log(`  clone → first answer  ${formatElapsed(cloneMs + (answerAt ?? result.totalMs))}`);
    console.log(`  answer: ${result.stdout.trim() || '(none)'}`);
    if (result.code !== 0) {
      console.error(`first-answer-timing: npm start failed (exit ${result.code})`);
      return 1;
    }
    return 0;
  } finally {
    if (keep) console.log(`kept ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
}

process.exitCode = await main();
