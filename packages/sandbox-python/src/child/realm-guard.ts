import childProcess from 'node:child_process';
import { constants as fsConstants } from 'node:fs';

/** Globals of a Node worker that reach the host (process, network, modules) or are not needed. */
const HOST_GLOBALS = [
  'process',
  'require',
  'module',
  'global',
  'Buffer',
  'fetch',
  'Request',
  'Response',
  'Headers',
  'FormData',
  'WebSocket',
  'EventSource',
  'navigator',
  'BroadcastChannel',
  '_createPyodideModule',
];

const CHILD_PROCESS_FUNCTIONS = [
  'spawn',
  'spawnSync',
  'exec',
  'execSync',
  'execFile',
  'execFileSync',
  'fork',
] as const;

/**
 * Prepares this worker's JavaScript realm before Pyodide loads. Pyodide's Emscripten runtime
 * runs `os.system` through `child_process.spawnSync` and reads `process.binding('constants')`
 * (refused under the permission model) when it starts; the first is disabled here (the
 * permission model refuses it too), the second answered with the public constants.
 */
export function prepareRealm(): void {
  const refuse = (): never => {
    throw Object.assign(new Error('subprocesses are not available in this sandbox'), {
      code: 'EPERM',
    });
  };
  const mutable = childProcess as unknown as Record<string, unknown>;
  for (const name of CHILD_PROCESS_FUNCTIONS) mutable[name] = refuse;
  (process as unknown as { binding: (name: string) => unknown }).binding = (name: string) => {
    if (name === 'constants') return { fs: fsConstants };
    throw new Error(`process.binding(${JSON.stringify(name)}) is not available`);
  };
}

/**
 * Removes the host's globals from this worker's realm once Pyodide has loaded: even code that
 * found a way from Python to a JavaScript object finds no `process`, `require` or `fetch` on the
 * global object, and (with `--disallow-code-generation-from-strings`) cannot compile an `import()`.
 */
export function stripRealm(): void {
  const scope = globalThis as Record<string, unknown>;
  for (const name of HOST_GLOBALS) {
    try {
      delete scope[name];
    } catch {
      scope[name] = undefined;
    }
  }
}
