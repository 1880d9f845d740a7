import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Examples import the package by name, as users do; point that name at the source.
  resolve: {
    alias: { '@rlm/trace': fileURLToPath(new URL('./src/index.ts', import.meta.url)) },
  },
  test: { include: ['src/**/*.test.ts'] },
});
