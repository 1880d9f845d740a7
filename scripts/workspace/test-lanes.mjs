// `npm test` runs every package's tests through turbo, but turbo starts ready tasks in the
// workspace's dependency order: the apps, whose suites are the longest, came last, and for the
// last minutes one core ran the server's suite alone while the other had nothing left to do.
// Here each package's test task is its own turbo run (`--only`: set-up has just built
// everything), started longest-first into as many lanes as there are cores, so the long suites
// overlap the short ones instead of trailing them.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { workspaceDirs } from './workspace-dirs.mjs';

/**
 * Seconds each package's suite took in a `.ci/run` on an idle 2-core machine (2026-11-29): only
 * the order of the lanes comes from them, so a stale figure costs a little wall time, never a
 * test. A package not listed is placed by its number of test files instead.
 */
const MEASURED_SECONDS = {
  '@rlm/server': 216,
  '@rlm/sandbox': 115,
  '@rlm/executor': 77,
  '@rlm/sandbox-python': 70,
  '@rlm/cli': 68,
  '@rlm/trace': 20,
  '@rlm/memory': 19,
  '@rlm/mcp': 17,
  '@rlm/eval': 16,
  '@rlm/prompts': 12,
  '@rlm/protocol': 10,
  '@rlm/testkit': 6,
};

/** A suite's expected length: its measured seconds, or about 2 s per test file. */
const expectedSeconds = (suite) => MEASURED_SECONDS[suite.name] ?? suite.testFiles * 2;

/**
 * The packages with a `test` script, longest suite first (by `MEASURED_SECONDS`, which a fresh
 * clone has without any record of an earlier run; else by number of test files).
 * `needsNative`: the package, or a workspace package it depends on, depends on one of
 * `nativeDependencies` (the ones whose install scripts build a native addon).
 */
export function testOrder(root, nativeDependencies = []) {
  const manifests = new Map();
  for (const dir of workspaceDirs(root)) {
    try {
      const manifest = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
      manifests.set(manifest.name, { dir, manifest });
    } catch {}
  }
  const native = new Set(nativeDependencies);
  const needsNative = (name, seen = new Set()) => {
    if (seen.has(name)) return false;
    seen.add(name);
    const { manifest } = manifests.get(name) ?? {};
    const deps = Object.keys({ ...manifest?.dependencies, ...manifest?.devDependencies });
    return deps.some((dep) => native.has(dep) || (manifests.has(dep) && needsNative(dep, seen)));
  };
  const suites = [];
  for (const [name, { dir, manifest }] of manifests) {
    if (typeof manifest.scripts?.test !== 'string') continue;
    suites.push({
      name,
      dir,
      testFiles: countTestFiles(join(root, dir, 'src')),
      needsNative: needsNative(name),
    });
  }
  return suites.sort(
    (a, b) => expectedSeconds(b) - expectedSeconds(a) || a.name.localeCompare(b.name),
  );
}

/** The dependencies pnpm-workspace.yaml lets run install scripts (`onlyBuiltDependencies`). */
export function builtDependencies(root) {
  let text;
  try {
    text = readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8');
  } catch {
    return [];
  }
  const block = /^onlyBuiltDependencies:\n((?:[ \t]+-[^\n]*\n?)*)/m.exec(text)?.[1] ?? '';
  return [...block.matchAll(/^[ \t]+-[ \t]*['"]?([^'"\s#]+)/gm)].map((match) => match[1]);
}

function countTestFiles(dir) {
  let count = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    if (entry.isDirectory()) count += countTestFiles(join(dir, entry.name));
    else if (/\.test\.[cm]?[jt]sx?$/.test(entry.name)) count += 1;
  }
  return count;
}

/**
 * Runs `start(suite)` for each suite in order, at most `lanes` at once. After a failure no
 * further suite starts (as turbo stops at the first failed task); the running ones finish.
 * Until `nativeReady` (if given) resolves (the set-up still compiles native addons, which keeps a core busy)
 * one lane fewer runs, and only suites without `needsNative`; then every lane takes the longest
 * suite left. `nativeReady` resolving to a status other than 0 is a failure named
 * `native-addons`. Resolves to the names of the suites that failed, in the order they ended.
 */
export async function runInLanes(suites, { lanes, start, nativeReady }) {
  const queue = [...suites];
  const failed = [];
  // Without `nativeReady` (nothing to build) every lane starts at once.
  let nativeDone = nativeReady === undefined;
  const native = (nativeReady ?? Promise.resolve(0)).then((status) => {
    nativeDone = true;
    if (status !== 0) failed.push('native-addons');
  });
  async function lane(index) {
    if (index > 0 && !nativeDone) await native;
    while (queue.length > 0 && failed.length === 0) {
      const at = queue.findIndex((suite) => nativeDone || !suite.needsNative);
      if (at < 0) {
        await native;
        continue;
      }
      const [suite] = queue.splice(at, 1);
      const status = await start(suite);
      if (status !== 0) failed.push(suite.name);
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, lanes) }, (_, index) => lane(index)));
  await native;
  return failed;
}

/** One package's test task through turbo, its output on ours; resolves to its exit status. */
export function turboTest(root, { command, args, env }, suite) {
  return new Promise((resolve) => {
    const child = spawn(
      command,
      [...args, 'turbo', 'run', 'test', '--only', `--filter=${suite.name}`],
      { cwd: root, stdio: 'inherit', env },
    );
    child.once('error', () => resolve(1));
    child.once('exit', (code, signal) => resolve(code ?? (signal === null ? 1 : 128)));
  });
}
