import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The path of a compiled script of this package (`child/supervisor.js`, the scan worker). From
 * `dist/` it sits beside the calling module; when that module runs from `src/` (the package's own
 * tests), Node 20 cannot start a `.ts` file as a process or worker, so the built copy in `dist/`
 * is used (the package's test script builds first).
 */
export function builtScript(relativePath: string, base: string): string {
  const beside = fileURLToPath(new URL(relativePath, base));
  if (existsSync(beside)) return beside;
  // The package's own src/ is the last one in the path (a checkout may live under another src/).
  const at = beside.lastIndexOf('/src/');
  return `${beside.slice(0, at)}/dist/${beside.slice(at + '/src/'.length)}`;
}
