import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Examples import the package by name, as users do; point that name at the source.
  resolve: {
    alias: { '@rlm/trace': fileURLToPath(new URL('./src/index.ts', import.meta.url)) },
  },
  // Vitest's 5 s default is a wall-time bound: CI shares a loaded 2-core machine, where a test
  // that takes half a second alone can take many times that. Limits under test have their own.
  test: { include: ['src/**/*.test.ts'], testTimeout: 30_000, hookTimeout: 30_000 },
});
