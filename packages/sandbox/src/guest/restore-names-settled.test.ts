import { describe, expect, it } from 'vitest';
import { ISOLATIONS, withSandbox } from '../sandbox-cases.test-helpers.js';

const DESCRIBE_PRINT = [
  'var d = Object.getOwnPropertyDescriptor(globalThis, "print");',
  'print(d.enumerable, d.writable, d.configurable, typeof d.value)',
].join('\n');

/** A few blocks that change no global: afterwards the scaffold names count as settled. */
async function quietBlocks(sandbox: { execute(code: string): Promise<unknown> }): Promise<void> {
  for (let index = 0; index < 3; index++) await sandbox.execute('0');
}

// While no key or flag of the global object changed since the scaffold names were last put back,
// `restore` compares only their values (see global-keys-watch.ts). These pin that every other
// change is still undone after blocks that changed nothing.
describe.each(ISOLATIONS)('restoring scaffold names after quiet blocks (%s)', (isolation) => {
  it('puts back scaffold names rebound to other values', async () => {
    await withSandbox({ isolation, context: 'ctx' }, async (sandbox) => {
      await quietBlocks(sandbox);
      const rebound = await sandbox.execute('print = 5; FINAL_VAR = null; context = 1; 0');
      expect(rebound.locals).toEqual({});
      const next = await sandbox.execute('print(typeof FINAL_VAR, context)');
      expect(next.stdout).toBe('function ctx\n');
    });
  });

  it('puts back scaffold names made enumerable with another value, or accessors', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      for (const change of [
        'Object.defineProperty(globalThis, "print", { configurable: true, writable: true, enumerable: true, value: 7 })',
        'Object.defineProperty(globalThis, "print", { get() { return 1 } })',
      ]) {
        await quietBlocks(sandbox);
        expect((await sandbox.execute(`${change}; 0`)).error).toBeNull();
        expect((await sandbox.execute(DESCRIBE_PRINT)).stdout).toBe('false true true function\n');
      }
    });
  });

  it('turns back an accessor that returns the scaffold value itself', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      await quietBlocks(sandbox);
      const code =
        'var keep = print; Object.defineProperty(globalThis, "print", { get() { return keep } }); 0';
      expect((await sandbox.execute(code)).error).toBeNull();
      expect((await sandbox.execute(DESCRIBE_PRINT)).stdout).toBe('false true true function\n');
    });
  });

  it('reports, after every block, a scaffold name made non-configurable with its value', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      await quietBlocks(sandbox);
      const note = 'note: could not restore the scaffold name(s) FINAL\n';
      const pinned = await sandbox.execute(
        'Object.defineProperty(globalThis, "FINAL", { configurable: false }); 0',
      );
      expect(pinned.stderr).toBe(note);
      expect((await sandbox.execute('0')).stderr).toBe(note);
      expect((await sandbox.execute('0')).stderr).toBe(note);
    });
  });

  it('puts back a scaffold name rebound by guest code a host read reached between blocks', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      await sandbox.execute('var sneaky = new Proxy({}, { ownKeys() { print = 7; return [] } })');
      await quietBlocks(sandbox);
      expect(await sandbox.getVariable('sneaky')).toEqual({});
      // Rebound until the block that follows ends, as with any rebinding.
      expect((await sandbox.execute('var seen = typeof print; 0')).error).toBeNull();
      const next = await sandbox.execute('print(seen, typeof print)');
      expect(next.stdout).toBe('number function\n');
    });
  });

  it('puts back a scaffold name deleted and created again as an ordinary global', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      await quietBlocks(sandbox);
      await sandbox.execute('delete globalThis.print; globalThis.print = 3; 0');
      expect((await sandbox.execute(DESCRIBE_PRINT)).stdout).toBe('false true true function\n');
    });
  });
});
