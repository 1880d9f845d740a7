import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

/** Replaces a Node module with a counting wrapper: it needs modules of its own. */
const MOCKS_MODULES = ['src/loop/context-hashed-once.test.ts'];

export default defineConfig({
  // Examples import the package by name, as users do; point that name at the source.
  resolve: {
    alias: { '@rlm/executor': fileURLToPath(new URL('./src/index.ts', import.meta.url)) },
  },
  test: {
    // Runs start real sandboxes (QuickJS, worker threads) on a shared 2-core machine: give a
    // slow moment room instead of failing on the default 5 s.
    testTimeout: 60_000,
    projects: [
      {
        extends: true,
        // These files share one worker and its modules instead of each loading the executor and
        // the sandbox anew (a third of the suite's time went to imports). Safe because none of
        // them mocks a module, stubs a global or changes the process; what the packages keep at
        // module level are caches (the compiled QuickJS module, prelude images, spare workers).
        test: {
          name: 'shared',
          include: ['src/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...MOCKS_MODULES],
          isolate: false,
        },
      },
      { extends: true, test: { name: 'isolated', include: MOCKS_MODULES } },
    ],
  },
});
