import { describe, expect, it } from 'vitest';
import { withSandbox } from '../sandbox-cases.test-helpers.js';

// The scaffold reuses its last classification of the global names while they stay the same
// (see `listing` in guest-variables.ts); these pin that every change still shows in `locals`.
describe('user variables listed after each block', () => {
  it('follows globals swapped one for another, which keeps their count', async () => {
    await withSandbox({ isolation: 'inline' }, async (sandbox) => {
      expect((await sandbox.execute('a = 1; b = 2')).locals).toEqual({ a: 'number', b: 'number' });
      const swapped = await sandbox.execute('delete globalThis.a; c = "x"');
      expect(swapped.locals).toEqual({ b: 'number', c: 'string' });
      const again = await sandbox.execute('delete globalThis.c; a = [1]');
      expect(again.locals).toEqual({ b: 'number', a: 'array' });
    });
  });

  it('tells apart name lists that join to the same text when names hold NUL', async () => {
    await withSandbox({ isolation: 'inline' }, async (sandbox) => {
      const first = await sandbox.execute('globalThis["p\\u0000q"] = 1; r = 2');
      expect(first.locals).toEqual({ 'p\u0000q': 'number', r: 'number' });
      // Same count, same text once joined by NUL: only the names differ.
      const second = await sandbox.execute(
        'delete globalThis["p\\u0000q"]; delete globalThis.r; p = 3; globalThis["q\\u0000r"] = 4',
      );
      expect(second.locals).toEqual({ p: 'number', 'q\u0000r': 'number' });
    });
  });

  it('shows a value change of an unchanged name, and a helper once rebound or defined as a getter', async () => {
    await withSandbox({ isolation: 'inline', context: 'text' }, async (sandbox) => {
      expect((await sandbox.execute('v = 1')).locals).toEqual({ v: 'number' });
      expect((await sandbox.execute('v = "s"')).locals).toEqual({ v: 'string' });
      const rebound = await sandbox.execute('count = 5');
      expect(rebound.locals).toEqual({ v: 'string', count: 'number' });
      const getter = await sandbox.execute(
        'Object.defineProperty(globalThis, "grep", { get() { return 1 }, configurable: true })',
      );
      expect(getter.locals).toMatchObject({ grep: 'accessor' });
    });
  });
});
