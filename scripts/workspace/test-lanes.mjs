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
 * The packages with a `test` script, longest suite first. A suite's length is guessed from its
 * number of test files, which needs no record of an earlier run (CI starts from a fresh clone).
 */
export function testOrder(root) {
  const suites = [];
  for (const dir of workspaceDirs(root)) {
    let manifest;
    try {
      manifest = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
    } catch {
      continue;
    }
    if (typeof manifest.scripts?.test !== 'string') continue;
    suites.push({ name: manifest.name, dir, testFiles: countTestFiles(join(root, dir, 'src')) });
  }
  return suites.sort((a, b) => b.testFiles - a.testFiles || a.name.localeCompare(b.name));
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
 * Resolves to the names of the suites that failed, in the order they ended.
 */
export async function runInLanes(suites, lanes, start) {
  const queue = [...suites];
  const failed = [];
  async function lane() {
    while (queue.length > 0 && failed.length === 0) {
      const suite = queue.shift();
      const status = await start(suite);
      if (status !== 0) failed.push(suite.name);
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, lanes) }, lane));
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
