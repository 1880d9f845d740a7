import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // Tests spawn MCP servers as child processes and run real sandboxes on a shared machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
