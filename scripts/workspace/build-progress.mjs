// Names each package as its build finishes, with a count (`build 5/12: @rlm/sandbox 41.0s`), so
// the first build's minutes are not one silent "still running". turbo prints nothing when a task
// ends; every package's build has `tsc -b` write its `dist/.tsbuildinfo` (and an app's bundle then
// writes `dist/.bundle-info.json`), so a package whose markers are all newer than the step's start
// has finished (built, or restored from turbo's cache).
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { buildMarkers } from './build-markers.mjs';
import { formatElapsed } from './run-step.mjs';
import { workspaceDirs } from './workspace-dirs.mjs';

/** The workspace's packages that have a build script, by directory. */
function builtPackages(root) {
  const found = [];
  for (const relative of workspaceDirs(root)) {
    const dir = join(root, relative);
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      if (typeof manifest.scripts?.build === 'string') {
        found.push({ dir, name: manifest.name, markers: buildMarkers(manifest) });
      }
    } catch {
      // Not a package (no or unreadable package.json): nothing to report for it.
    }
  }
  return found;
}

function modifiedAt(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/**
 * A poller for one build step: each call returns lines for the packages that finished since the
 * last call. `now` and `startedAt` are injectable for tests.
 */
export function buildProgress(root, { startedAt = Date.now(), now = Date.now } = {}) {
  const packages = builtPackages(root);
  const finished = new Set();
  return () => {
    const lines = [];
    for (const { dir, name, markers } of packages) {
      if (finished.has(name)) continue;
      const times = markers.map((marker) => modifiedAt(join(dir, 'dist', marker)));
      // A little slack for file systems whose timestamps are coarser than the clock.
      if (times.some((at) => at === undefined || at < startedAt - 1_000)) continue;
      finished.add(name);
      lines.push(
        `${finished.size}/${packages.length}: ${name} ${formatElapsed(now() - startedAt)}`,
      );
    }
    return lines;
  };
}
