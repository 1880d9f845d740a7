import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Real Pyodide interpreters in child processes on a shared 2-core machine: generous per-test
  // time, never tight asserts. Files run one at a time so their interpreters do not compete.
  test: { include: ['src/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 120_000, fileParallelism: false },
});
