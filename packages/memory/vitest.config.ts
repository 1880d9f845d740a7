import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // One PostgreSQL server for the run (Debian's binaries, a temp directory, 127.0.0.1).
    globalSetup: ['src/__fixtures__/postgres-global-setup.ts'],
    // Eviction-boundary tests write 1,000+ rows through SQLite and Postgres, and the durability
    // tests run child processes; on a machine shared with other test runs that can take seconds.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The files share one worker and its modules instead of each loading them anew. Safe because
    // no test here mocks a module, stubs a global or changes the process, and the package keeps
    // nothing at module level: every test opens its own database.
    isolate: false,
  },
});
