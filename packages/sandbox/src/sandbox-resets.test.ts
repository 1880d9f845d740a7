import { describe, expect, it } from 'vitest';
import { withSandbox } from './sandbox-cases.test-helpers.js';

/** `JSON.stringify` of a 60,000-deep object: one native call that runs for seconds. */
const DEEP_OBJECT = [
  'var big = {}; 1',
  ...Array.from({ length: 20 }, () => 'for (let i = 0; i < 3_000; i++) big = { big }; 1'),
];
const LIMITS = { cpuSliceMs: 1_000, blockTimeoutMs: 2_000, memoryBytes: 512 * 2 ** 20 };

describe('a sandbox whose engine was replaced', () => {
  it('counts the reset, so a caller that dropped the cancelled block still learns the state is gone', async () => {
    await withSandbox({ isolation: 'worker', limits: LIMITS }, async (sandbox) => {
      expect(sandbox.resets).toBe(0);
      for (const code of ['var keep = 42', ...DEEP_OBJECT]) {
        expect((await sandbox.execute(code)).error).toBeNull();
      }
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), 300);
      const cancelled = await sandbox.execute('JSON.stringify(big).length', {
        signal: controller.signal,
      });
      clearTimeout(timer);
      expect(cancelled.error?.code).toBe('sandbox.reset');
      expect(sandbox.resets).toBe(1);
      expect(sandbox.poisoned).toBe(false);
      expect((await sandbox.execute('typeof keep')).stdout).toBe("'undefined'\n");
      expect(sandbox.resets).toBe(1);
    });
  });

  it('stays at zero while blocks fail or time out', async () => {
    await withSandbox({ isolation: 'inline', limits: { cpuSliceMs: 200 } }, async (sandbox) => {
      expect((await sandbox.execute('throw new Error("x")')).error?.name).toBe('Error');
      expect((await sandbox.execute('while (true) {}')).error?.code).toBe('sandbox.timeout');
      expect(sandbox.resets).toBe(0);
    });
  });
});
