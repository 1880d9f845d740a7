import { realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';

/** The directory of the installed `pyodide` package (its WebAssembly, stdlib zip and loader). */
export function pyodideDirectory(): string {
  const require = createRequire(import.meta.url);
  return dirname(realpathSync(require.resolve('pyodide/package.json')));
}

/**
 * Node flags that start an interpreter process under the permission model: it may read the
 * Pyodide package and this package's compiled code, start its one interpreter thread, and nothing
 * else (no file writes, no child processes, no native addons, no WASI). String code generation
 * (`eval`, `new Function`, and so `import()` from such code) is off.
 *
 * Node 20's permission model does not cover the network; sockets are kept away by the layers
 * inside the process (see child/realm-guard.ts and child/python/hardening.py).
 */
export function interpreterFlags(readPaths: readonly string[]): string[] {
  const permission = process.allowedNodeEnvironmentFlags.has('--permission')
    ? '--permission'
    : '--experimental-permission';
  return [
    permission,
    // One flag per path: Node 20 misreads a comma-separated list that names a directory.
    ...readPaths.map((path) => `--allow-fs-read=${realpathSync(path)}`),
    '--allow-worker',
    '--disallow-code-generation-from-strings',
    '--no-warnings',
  ];
}
