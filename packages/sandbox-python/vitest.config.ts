import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // Real Pyodide interpreters in child processes on a shared 2-core machine: generous per-test
    // time, never tight asserts. Files run one after another in one worker, so they share the
    // interpreter pool (and its memory snapshot) instead of each loading Pyodide from scratch.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    isolate: false,
  },
});
