import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    globalSetup: ['src/testing/require-built-binary.ts'],
    // Tests run real sandboxes, and those about the process (signals, stdio, the bin) spawn the
    // built binary, on a machine shared by several engineers: generous limits, so a loaded machine
    // slows tests down without failing them. At load 40+ one CLI start (`--help`) takes 7–9 s.
    // Behaviour tests run the CLI in process (src/testing/run-cli-in-process.ts) to avoid that.
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});
