import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Eviction-boundary tests write 1,000+ rows through SQLite and the durability tests run child
  // processes; on a machine shared with other test runs that can take several seconds.
  test: { include: ['src/**/*.test.ts'], testTimeout: 30_000 },
});
