import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/** Polls until `pid` no longer exists; false if it is still there after `timeoutMs`. */
async function gone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

describe('interpreter process', () => {
  it.each([5, 500])(
    'exits on its own when the host process dies %i ms after starting it',
    async (delayMs) => {
      const module = new URL('../../dist/host/interpreter-process.js', import.meta.url).href;
      const script = [
        `const { InterpreterProcess } = await import(${JSON.stringify(module)});`,
        'const child = InterpreterProcess.spawn({ memoryBytes: 64 << 20, snapshot: new Promise(() => {}), makeSnapshot: false });',
        'console.log(child.pid);',
        `setTimeout(() => process.exit(0), ${delayMs});`,
      ].join('\n');
      const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
        encoding: 'utf8',
      });
      const pid = Number(result.stdout.trim());
      expect(pid).toBeGreaterThan(0);
      // The child checks for its parent once a second; the bound leaves room for a busy machine.
      expect(await gone(pid, 15_000)).toBe(true);
    },
  );
});
