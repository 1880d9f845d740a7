import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The URL of a compiled worker script of this package (`sandbox-worker.js`, `scan-worker.js`).
 * From `dist/` it sits beside the calling module; when that module runs from `src/` (the
 * package's own tests), Node 20 cannot start a `.ts` worker, so the built copy in `dist/` is used
 * (the package's test script builds first).
 */
export function scriptUrl(relativePath: string, base: string): URL {
  const beside = new URL(relativePath, base);
  if (existsSync(fileURLToPath(beside))) return beside;
  // The package's own src/ is the last one in the path (a checkout may live under another src/).
  const at = beside.href.lastIndexOf('/src/');
  return new URL(`${beside.href.slice(0, at)}/dist/${beside.href.slice(at + '/src/'.length)}`);
}
