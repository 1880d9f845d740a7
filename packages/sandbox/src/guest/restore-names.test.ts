import { describe, expect, it } from 'vitest';
import { ISOLATIONS, withSandbox } from '../sandbox-cases.test-helpers.js';

const DESCRIBE_PRINT = [
  'const d = Object.getOwnPropertyDescriptor(globalThis, "print");',
  'print(d.enumerable, d.writable, d.configurable, typeof d.value)',
].join('\n');

// `restore` puts most scaffold names back with one `defineProperty` each and falls back to a
// descriptor for the rest (see guest-variables.ts). These pin what the model sees in the cases
// that decide between the two.
describe.each(ISOLATIONS)('restoring scaffold names after a block (%s)', (isolation) => {
  it('leaves an enumerable scaffold name that still holds its value as it is', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      await sandbox.execute('Object.defineProperty(globalThis, "print", { enumerable: true })');
      expect((await sandbox.execute(DESCRIBE_PRINT)).stdout).toBe('true true true function\n');
    });
  });

  it('defines a rebound enumerable scaffold name again as a hidden global', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      await sandbox.execute('Object.defineProperty(globalThis, "print", { enumerable: true })');
      await sandbox.execute('print = 5');
      expect((await sandbox.execute(DESCRIBE_PRINT)).stdout).toBe('false true true function\n');
    });
  });

  it('turns an enumerable accessor back into the hidden value', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      await sandbox.execute('globalThis.__defineGetter__("print", () => 1)');
      const result = await sandbox.execute(DESCRIBE_PRINT);
      expect(result.stdout).toBe('false true true function\n');
      expect(result.locals).toEqual({ d: 'object' });
    });
  });

  it('reports a deleted name it cannot define again on a global object closed to new names', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      const closed = await sandbox.execute(
        'delete globalThis.FINAL; Object.preventExtensions(globalThis); print = 3',
      );
      expect(closed.stderr).toBe('note: could not restore the scaffold name(s) FINAL\n');
      const next = await sandbox.execute('print(typeof FINAL, typeof print)');
      expect(next.stdout).toBe('undefined function\n');
    });
  });

  it('reports every scaffold name of a frozen global object, and keeps their values', async () => {
    await withSandbox({ isolation, context: 'ctx' }, async (sandbox) => {
      const frozen = await sandbox.execute('Object.freeze(globalThis); 1');
      expect(frozen.stdout).toBe('1\n');
      expect(frozen.stderr).toBe(
        'note: could not restore the scaffold name(s) console, print, FINAL, FINAL_VAR, SHOW_VARS, __rlm, context_0, context\n',
      );
      expect((await sandbox.execute('print(context)')).stdout).toBe('ctx\n');
    });
  });

  it('compares a number payload with ===, so 0 stays in place of -0', async () => {
    await withSandbox({ isolation, context: -0 }, async (sandbox) => {
      await sandbox.execute('context_0 = 0; context = 0');
      const read = await sandbox.execute('print(Object.is(context_0, -0), Object.is(context, 0))');
      expect(read.stdout).toBe('false true\n');
    });
  });
});
