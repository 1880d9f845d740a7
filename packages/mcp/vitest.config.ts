import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // Tests spawn MCP servers as child processes and run real sandboxes on a shared machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // The files share one worker and its modules instead of each loading the executor and the
    // sandbox anew (half the suite's CPU went there). Safe because no test here mocks a module,
    // stubs a global or changes the process; what the packages keep at module level are caches
    // (the compiled QuickJS module, prelude images, spare workers).
    isolate: false,
  },
});
