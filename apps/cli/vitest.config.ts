import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    globalSetup: ['src/testing/require-built-binary.ts'],
    // Tests spawn the built binary and real sandboxes on a machine shared by several engineers:
    // generous limits, so a loaded machine slows tests down without failing them. At load 40+ one
    // CLI start (`--help`) takes 7–9 s, and a resume test starts four: 60 s was not enough.
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});
