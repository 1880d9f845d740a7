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
    // The files share one worker and its modules instead of each loading the CLI, the executor and
    // the sandbox anew (half the CPU of the light files went there). Safe because no test here
    // mocks a module, stubs a global, or changes the process (env, cwd, listeners): in-process
    // runs get their environment through CliIo, and what the imported packages keep at module
    // level are caches (the compiled QuickJS module, prelude images, spare workers). A test that
    // needs fresh modules belongs in a file of its own with `isolate: true` in a second project.
    isolate: false,
  },
});
