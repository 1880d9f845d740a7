import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // Generous: end-to-end evals run real sandboxes on a machine shared with other test runs.
    testTimeout: 30_000,
    // The files share one worker and its modules instead of each loading the executor and the
    // sandboxes anew (half the suite's CPU went there). Safe because no test here mocks a module,
    // stubs a global or changes the process; what the packages keep at module level are caches
    // (the compiled QuickJS module, prelude images, spare workers, the Python interpreter pool).
    isolate: false,
  },
});
