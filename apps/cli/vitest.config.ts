import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    globalSetup: ['src/testing/require-built-binary.ts'],
    // Tests spawn the built binary and real sandboxes on a machine shared by several engineers:
    // generous limits, so a loaded machine slows tests down without failing them.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
