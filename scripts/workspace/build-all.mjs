#!/usr/bin/env node
// Builds every workspace package in one TypeScript process (`pnpm build`, and the build step of
// `npm start` / `npm test`).
//
// Every package's build script has the shape `[pre && ] tsc -b tsconfig.build.json [&& post]`:
// `pre` generates sources (embedded scripts), `post` bundles an app. Run by turbo, package by
// package, each `tsc -b` is a process of its own that loads the compiler and parses the same
// declarations again (Node's, zod's, each dependency's): on a fresh clone that was half of the
// build's CPU. Here every `pre` runs first (all at once), then one `tsc -b` over all the packages'
// tsconfig.build.json (it builds them in dependency order and skips what is up to date, so an
// unchanged workspace costs a second), then every `post`. A package's own `pnpm build` (or
// `turbo run build --filter …`) still runs its script as before.
//
//   node scripts/workspace/build-all.mjs
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { workspaceDirs } from './workspace-dirs.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const TSC_STEP = 'tsc -b tsconfig.build.json';

/** Each package with a build script, split around its `tsc -b` step. */
export function buildPlans(workspaceRoot) {
  const plans = [];
  for (const dir of workspaceDirs(workspaceRoot)) {
    let manifest;
    try {
      manifest = JSON.parse(readFileSync(join(workspaceRoot, dir, 'package.json'), 'utf8'));
    } catch {
      continue;
    }
    const script = manifest.scripts?.build;
    if (typeof script !== 'string') continue;
    const steps = script.split(' && ').map((step) => step.trim());
    const at = steps.indexOf(TSC_STEP);
    if (at < 0 || steps.lastIndexOf(TSC_STEP) !== at) {
      throw new Error(
        `${manifest.name}: its build script must run \`${TSC_STEP}\` exactly once, between optional steps joined by &&; got: ${script}`,
      );
    }
    plans.push({ dir, name: manifest.name, pre: steps.slice(0, at), post: steps.slice(at + 1) });
  }
  return plans;
}

/** Runs one shell command in `cwd` with the workspace's and the package's bins on PATH. */
function sh(command, cwd) {
  const path = [join(cwd, 'node_modules/.bin'), join(root, 'node_modules/.bin'), process.env.PATH];
  return new Promise((resolve) => {
    const child = spawn(command, {
      cwd,
      shell: true,
      env: { ...process.env, PATH: path.join(':') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.once('error', (error) => resolve({ status: 1, output: String(error) }));
    child.once('close', (status) => resolve({ status: status ?? 1, output }));
  });
}

/** Runs each package's steps (one after another within a package, packages side by side). */
async function runSteps(plans, pick, phase) {
  const results = await Promise.all(
    plans.map(async (plan) => {
      for (const step of pick(plan)) {
        const { status, output } = await sh(step, join(root, plan.dir));
        if (status !== 0) return { plan, step, output };
      }
      return undefined;
    }),
  );
  const failed = results.filter((result) => result !== undefined);
  for (const { plan, step, output } of failed) {
    process.stderr.write(`build-all: ${plan.name} (${phase}): \`${step}\` failed\n${output}\n`);
  }
  return failed.length === 0;
}

async function main() {
  const started = Date.now();
  const plans = buildPlans(root);
  if (!(await runSteps(plans, (plan) => plan.pre, 'before tsc'))) process.exit(1);
  // A solution file: no sources of its own, one reference per package; tsc orders them.
  const solutionDir = join(root, 'node_modules/.cache/rlm-build');
  mkdirSync(solutionDir, { recursive: true });
  const solution = join(solutionDir, 'tsconfig.json');
  writeFileSync(
    solution,
    `${JSON.stringify(
      {
        files: [],
        references: plans.map(({ dir }) => ({
          path: relative(solutionDir, join(root, dir, 'tsconfig.build.json')),
        })),
      },
      null,
      2,
    )}\n`,
  );
  const tsc = await sh(`tsc -b ${JSON.stringify(solution)}`, root);
  if (tsc.status !== 0) {
    process.stderr.write(`build-all: tsc -b failed\n${tsc.output}\n`);
    process.exit(1);
  }
  if (!(await runSteps(plans, (plan) => plan.post, 'after tsc'))) process.exit(1);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`build-all: ${plans.length} packages built in ${seconds}s`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
