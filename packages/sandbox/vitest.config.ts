import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Real QuickJS engines on a shared 2-core machine: generous per-test time, never tight asserts.
  test: { include: ['src/**/*.test.ts'], testTimeout: 60_000 },
});
