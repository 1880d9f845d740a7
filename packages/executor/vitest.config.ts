import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Examples import the package by name, as users do; point that name at the source.
  resolve: {
    alias: { '@rlm/executor': fileURLToPath(new URL('./src/index.ts', import.meta.url)) },
  },
  test: {
    include: ['src/**/*.test.ts'],
    // Runs start real sandboxes (QuickJS, worker threads) on a shared 2-core machine: give a
    // slow moment room instead of failing on the default 5 s.
    testTimeout: 60_000,
  },
});
