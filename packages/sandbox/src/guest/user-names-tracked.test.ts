import { describe, expect, it } from 'vitest';
import { ISOLATIONS, withSandbox } from '../sandbox-cases.test-helpers.js';

// A block after which the global object's keys are those the scaffold last listed reuses that
// listing instead of listing the globals again (see global-keys-watch.ts). These pin that every
// way a name comes or goes still shows in `locals`, in the block that did it and in later ones.
describe.each(ISOLATIONS)('user names while the globals are tracked (%s)', (isolation) => {
  it('lists the names each kind of declaration or assignment creates, and keeps them', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      const steps: [string, Record<string, string>][] = [
        ['a = 1', { a: 'number' }],
        ['function f() {}', { f: 'function' }],
        ['var v = "s"', { v: 'string' }],
        ['let l = [1]', { l: 'array' }],
        ['const c = new Map()', { c: 'map' }],
        ['class K {}', { K: 'class' }],
        ['globalThis.g = 1', { g: 'number' }],
        ['this.t = null', { t: 'null' }],
        ['Reflect.set(globalThis, "r", 2)', { r: 'number' }],
        ['(0, eval)("var e = 1")', { e: 'number' }],
        ['Object.defineProperty(globalThis, "hidden", { value: 1 })', { hidden: 'number' }],
        ['1 + 1', {}],
      ];
      let expected: Record<string, string> = {};
      for (const [code, added] of steps) {
        expected = { ...expected, ...added };
        const result = await sandbox.execute(code);
        expect(result.error).toBeNull();
        expect(result.locals).toEqual(expected);
        // A block that changes no name lists the same, with the types as they are now.
        expect((await sandbox.execute('undefined')).locals).toEqual(expected);
      }
      const deleted = await sandbox.execute(
        'delete globalThis.a; Reflect.deleteProperty(globalThis, "g"); delete this.t',
      );
      const { a: _a, g: _g, t: _t, ...rest } = expected;
      expect(deleted.locals).toEqual(rest);
      expect((await sandbox.execute('0')).locals).toEqual(rest);
    });
  });

  it('lists names that functions of earlier blocks create or delete when called', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      await sandbox.execute(
        'function make(name) { globalThis[name] = 1 }\nfunction drop(name) { delete globalThis[name] }',
      );
      expect((await sandbox.execute('make("made")')).locals).toEqual({
        make: 'function',
        drop: 'function',
        made: 'number',
      });
      expect((await sandbox.execute('drop("made")')).locals).toEqual({
        make: 'function',
        drop: 'function',
      });
      // Deleted and created in one block: as many keys as before, other names.
      await sandbox.execute('make("one")');
      const swapped = await sandbox.execute('drop("one"); make("two")');
      expect(swapped.locals).toEqual({ make: 'function', drop: 'function', two: 'number' });
    });
  });

  it('never lists scaffold names a block rebinds, deletes or shadows, and finds the rest', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      expect((await sandbox.execute('print = 1; FINAL = 2; x = 3')).locals).toEqual({
        x: 'number',
      });
      expect((await sandbox.execute('delete globalThis.print; y = 4')).locals).toEqual({
        x: 'number',
        y: 'number',
      });
      const after = await sandbox.execute('print(x + y)');
      expect(after.stdout).toBe('7\n');
      expect(after.locals).toEqual({ x: 'number', y: 'number' });
    });
  });

  it('lists a name that printing the completion value creates, or deletes', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      const created = await sandbox.execute(
        'new Proxy({}, { ownKeys() { globalThis.fromTrap = 1; return [] } })',
      );
      expect(created.locals).toEqual({ fromTrap: 'number' });
      expect((await sandbox.execute('0')).locals).toEqual({ fromTrap: 'number' });
      const deleted = await sandbox.execute(
        'new Proxy({}, { ownKeys() { delete globalThis.fromTrap; return [] } })',
      );
      expect(deleted.locals).toEqual({});
      expect((await sandbox.execute('0')).locals).toEqual({});
    });
  });

  it('names a Proxy of a function without running the trap that would create a name', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      const first = await sandbox.execute(
        'var p = new Proxy(function () {}, { get(target, key) { if (key === "name") globalThis.late = 1; return Reflect.get(target, key) } })',
      );
      expect(first.locals).toEqual({ p: 'function' });
      expect((await sandbox.execute('0')).locals).toEqual({ p: 'function' });
    });
  });

  it('lists the names the host sets between blocks, and ignores symbol keys', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      await sandbox.execute('a = 1');
      await sandbox.setVariable('given', 'text');
      expect((await sandbox.execute('0')).locals).toEqual({ a: 'number', given: 'string' });
      const symbol = await sandbox.execute('globalThis[Symbol("s")] = 1; 0');
      expect(symbol.locals).toEqual({ a: 'number', given: 'string' });
      const gone = await sandbox.execute(
        'delete globalThis[Object.getOwnPropertySymbols(globalThis).find((s) => s.description === "s")]; b = 2',
      );
      expect(gone.locals).toEqual({ a: 'number', given: 'string', b: 'number' });
      expect(await sandbox.listVariables()).toHaveLength(3);
      expect((await sandbox.execute('delete globalThis.a')).locals).toEqual({
        given: 'string',
        b: 'number',
      });
    });
  });

  it('lists exactly the new names after a block deletes many and creates as many others', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      const names = (prefix: string) =>
        Object.fromEntries(Array.from({ length: 120 }, (_, i) => [`${prefix}${i}`, 'number']));
      await sandbox.execute('(() => { for (let i = 0; i < 120; i++) globalThis["n" + i] = i })()');
      expect((await sandbox.execute('0')).locals).toEqual(names('n'));
      const swapped = await sandbox.execute(
        '(() => { for (let i = 0; i < 120; i++) { delete globalThis["n" + i]; globalThis["m" + i] = i } })()',
      );
      expect(swapped.locals).toEqual(names('m'));
      const back = await sandbox.execute(
        '(() => { for (let i = 0; i < 120; i++) { delete globalThis["m" + i]; globalThis["n" + i] = i } })()',
      );
      expect(back.locals).toEqual(names('n'));
    });
  });
});
