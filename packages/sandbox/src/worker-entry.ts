import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The compiled worker script. From `dist/` it sits beside this module; when this module runs
 * from `src/` (the package's own tests), Node cannot start a `.ts` worker, so the built copy in
 * `dist/` is used (the package's test script builds first).
 */
export function workerEntryUrl(): URL {
  const beside = new URL('./sandbox-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(beside))) return beside;
  return new URL('../dist/sandbox-worker.js', import.meta.url);
}
