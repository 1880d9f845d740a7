import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Generous: end-to-end evals run real sandboxes on a machine shared with other test runs.
  test: { include: ['src/**/*.test.ts'], testTimeout: 30_000 },
});
