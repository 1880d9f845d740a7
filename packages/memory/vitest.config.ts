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
  },
});
