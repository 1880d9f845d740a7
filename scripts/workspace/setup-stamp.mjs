// Whether workspace.mjs can skip its set-up (pnpm through npx, install, build): a stamp written
// after a set-up that succeeded records what it was built from and what it produced; when both
// still match, nothing would change and the job starts at once. Checked by size and modification
// time (as make does), so the check is a walk of a few thousand `stat`s, well under a second.

import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { workspaceDirs } from './workspace-dirs.mjs';

/** Where the stamp lives: under node_modules, so a clean install starts without one. */
export const STAMP_PATH = ['node_modules', '.cache', 'rlm-workspace-setup.json'];

/** Files at the root that change what install or build do. */
const ROOT_INPUTS = [
  'package.json',
  'pnpm-lock.yaml',
  'pnpm-workspace.yaml',
  'turbo.json',
  'tsconfig.base.json',
  '.npmrc',
  'scripts/embed-script.mjs',
  'scripts/workspace/build-all.mjs',
  'scripts/workspace/bundle-app.mjs',
  // pnpm's own record of the installed tree: a changed install changes it. (Not .modules.yaml:
  // `pnpm rebuild` rewrites that while the build runs, which would void every stamp.)
  'node_modules/.pnpm/lock.yaml',
];

/** Never inputs: the gitignored outputs and caches inside a package (turbo's view too). */
const SKIPPED_DIRS = new Set([
  'node_modules',
  'dist',
  '.turbo',
  'coverage',
  'test-artifacts',
  '.rlm',
]);
const isGeneratedOutput = (name) => name.endsWith('.generated.ts') || name.endsWith('.tsbuildinfo');

/** Appends `path size mtime` for every file under `dir` (relative to `root`) to `hash`. */
function hashTree(hash, root, { dir, skip }) {
  let entries;
  try {
    entries = readdirSync(join(root, dir), { withFileTypes: true });
  } catch {
    hash.update(`${dir} missing\n`);
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!skip(entry.name, true)) hashTree(hash, root, { dir: path, skip });
    } else if (!skip(entry.name, false)) {
      hashFile(hash, root, path);
    }
  }
}

function hashFile(hash, root, path) {
  try {
    const stat = statSync(join(root, path));
    hash.update(`${path} ${stat.size} ${stat.mtimeMs}\n`);
  } catch {
    hash.update(`${path} missing\n`);
  }
}

/** What install and build read: the root's files and every package's sources. */
export function inputFingerprint(root, packageManager) {
  const hash = createHash('sha256');
  hash.update(`${process.version} ${packageManager}\n`);
  for (const file of ROOT_INPUTS) hashFile(hash, root, file);
  for (const dir of workspaceDirs(root)) {
    hashTree(hash, root, {
      dir,
      skip: (name, isDir) => (isDir ? SKIPPED_DIRS.has(name) : isGeneratedOutput(name)),
    });
  }
  return hash.digest('hex');
}

/** What the build wrote: every package's dist/. */
export function outputFingerprint(root) {
  const hash = createHash('sha256');
  for (const dir of workspaceDirs(root))
    hashTree(hash, root, { dir: join(dir, 'dist'), skip: () => false });
  return hash.digest('hex');
}

/** Whether the recorded set-up still holds: same inputs, same outputs. */
export function setupIsCurrent(root, inputs) {
  try {
    const stamp = JSON.parse(readFileSync(join(root, ...STAMP_PATH), 'utf8'));
    return stamp?.inputs === inputs && stamp.outputs === outputFingerprint(root);
  } catch {
    // No stamp, or one that cannot be read: set up as on a fresh clone.
    return false;
  }
}

/**
 * Records a set-up that succeeded. `inputs` is the fingerprint taken before it started: if a
 * source changed while it ran, the stamp is not written, so the next job sets up again.
 */
export function writeSetupStamp(root, packageManager, inputs) {
  if (inputFingerprint(root, packageManager) !== inputs) return false;
  const path = join(root, ...STAMP_PATH);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, `${JSON.stringify({ inputs, outputs: outputFingerprint(root) })}\n`);
  return true;
}
