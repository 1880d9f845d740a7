import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Vitest's 5 s default is a wall-time bound: CI shares a loaded 2-core machine, where a test
  // that takes half a second alone can take many times that. Limits under test have their own.
  test: {
    include: ['src/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // One PostgreSQL for the replica tests (Debian's binaries, a temp directory, 127.0.0.1).
    globalSetup: ['src/test-support/postgres-global-setup.ts'],
    // The files share one worker and its modules instead of each loading the server, the
    // executor and the sandbox anew (a fifth of the suite's time was imports). Safe because no
    // test here mocks a module, stubs a global or changes the process (the one warning listener
    // is removed in its test's finally); every test starts its own server and database, and what
    // the packages keep at module level are caches (the compiled QuickJS module, prelude images).
    isolate: false,
  },
});
