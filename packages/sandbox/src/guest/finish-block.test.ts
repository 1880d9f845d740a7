import { describe, expect, it } from 'vitest';
import { ISOLATIONS, withSandbox } from '../sandbox-cases.test-helpers.js';

// A block that `finishBlock` ends begins the next one (its output stays open; the host closes it
// before guest code runs in between), and the variables' types and the helpers are read without
// a descriptor when no accessor is there. These pin what the model sees around both shortcuts,
// including the cases where they must not apply.
describe.each(ISOLATIONS)('the end of a completed block (%s)', (isolation) => {
  it('gives jobs the block left pending no way into the next block’s output', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      // Printing the Proxy reads its keys after the block settled: the job it queues is left.
      const leaving = await sandbox.execute(
        'var ran = 0;\nnew Proxy({}, { ownKeys() { Promise.resolve().then(() => { ran++; print("leaked") }); return [] } })',
      );
      expect(leaving.error).toBeNull();
      expect(leaving.stdout).toBe('{}\n');
      const next = await sandbox.execute('print("next"); ran');
      expect(next.stdout).toBe('next\n0\n');
    });
  });

  it('prints nowhere what traps reached by host reads between blocks print', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      await sandbox.execute(
        'var reads = 0;\nvar loud = new Proxy({}, { ownKeys() { reads++; print("from a trap"); return [] } })',
      );
      expect(await sandbox.getVariable('loud')).toEqual({});
      // The listing measures a Proxy without walking it (see proxy-tracking.ts).
      expect(await sandbox.listVariables()).toEqual([
        { name: 'reads', type: 'number', size: 1 },
        { name: 'loud', type: 'object', size: '"[Proxy]"'.length },
      ]);
      const next = await sandbox.execute('print("next"); reads');
      // The host's read ran the trap; its print did not reach this block.
      expect(next.stdout).toBe('next\n1\n');
      expect(next.stderr).toBe('');
    });
  });

  it('keeps the next block’s output when the host sets variables in between', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      await sandbox.execute('print("first")');
      await sandbox.setVariable('given', 'value');
      const next = await sandbox.execute('print(given)', { variables: { other: 2 } });
      expect(next.stdout).toBe('value\n');
      expect(next.locals).toEqual({ given: 'string', other: 'number' });
    });
  });

  it('starts the next block afresh after a block stopped while it was being finished', async () => {
    await withSandbox({ isolation, limits: { cpuSliceMs: 300 } }, async (sandbox) => {
      const stopped = await sandbox.execute(
        'print("before"); new Proxy({}, { ownKeys() { for (;;) {} } })',
      );
      expect(stopped.error).toMatchObject({ code: 'sandbox.timeout' });
      const next = await sandbox.execute('print("after"); 7');
      expect(next.stdout).toBe('after\n7\n');
    });
  });

  it('names accessors, setter-only ones and those with neither function, apart from undefined data', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      const result = await sandbox.execute(
        [
          'Object.defineProperty(globalThis, "getter", { get() { print("never"); return 1 }, configurable: true });',
          'Object.defineProperty(globalThis, "setter", { set(v) {}, configurable: true });',
          'Object.defineProperty(globalThis, "neither", { get: undefined, configurable: true });',
          'Object.defineProperty(globalThis, "hidden", { value: undefined, writable: true });',
          'Object.defineProperty(globalThis, "quiet", { value: 1 });',
          'void 0',
        ].join('\n'),
      );
      expect(result.stdout).toBe('');
      expect(result.locals).toEqual({
        getter: 'accessor',
        setter: 'accessor',
        neither: 'accessor',
        hidden: 'undefined',
        quiet: 'number',
      });
    });
  });

  it('names the types without running a trap that would delete the next variable', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      // Naming a function's type never reads a Proxy's name (see type-name.ts).
      const result = await sandbox.execute(
        'globalThis.first = new Proxy(function () {}, { get(t, k) { delete globalThis.second; return t[k] } });\nglobalThis.second = 1',
      );
      expect(result.locals).toEqual({ first: 'function', second: 'number' });
      expect((await sandbox.execute('typeof second')).stdout).toBe("'number'\n");
    });
  });

  it('hides a helper only while its global holds it as a data property', async () => {
    await withSandbox({ isolation, context: 'text' }, async (sandbox) => {
      const pinned = await sandbox.execute(
        'Object.defineProperty(globalThis, "count", { value: count, writable: false });',
      );
      expect(pinned.locals).toEqual({});
      const setter = await sandbox.execute(
        'Object.defineProperty(globalThis, "grep", { set(v) {}, configurable: true });',
      );
      expect(setter.locals).toEqual({ grep: 'accessor' });
      const gone = await sandbox.execute('delete globalThis.lines');
      expect(gone.locals).toEqual({ grep: 'accessor' });
    });
  });

  it('restores scaffold names deleted, rebound, redefined or turned into accessors', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      await sandbox.execute(
        [
          'delete globalThis.print;',
          'SHOW_VARS = 1;',
          'Object.defineProperty(globalThis, "FINAL", { value: 1, writable: false, configurable: true });',
          'Object.defineProperty(globalThis, "console", { get() { return 1 }, configurable: true });',
          'void 0',
        ].join('\n'),
      );
      const result = await sandbox.execute(
        [
          'const d = Object.getOwnPropertyDescriptor(globalThis, "console");',
          'print(typeof SHOW_VARS, typeof FINAL, typeof d.value.log, d.enumerable)',
        ].join('\n'),
      );
      expect(result.stdout).toBe('function function function false\n');
      expect(result.locals).toEqual({ d: 'object' });
    });
  });

  it('reports a scaffold name it cannot restore, and still ends the block', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      const result = await sandbox.execute(
        'Object.defineProperty(globalThis, "FINAL_VAR", { value: 1, writable: false, configurable: false }); print("done")',
      );
      expect(result.stdout).toBe('done\n');
      expect(result.stderr).toBe('note: could not restore the scaffold name(s) FINAL_VAR\n');
      expect((await sandbox.execute('print("next")')).stdout).toBe('next\n');
    });
  });

  it('keeps printing and listing after built-ins the scaffold once used are replaced', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      await sandbox.execute(
        [
          'Function.prototype.call = function () { throw new Error("call") };',
          'Function.prototype.bind = function () { throw new Error("bind") };',
          'Array.prototype.join = function () { return "X" };',
          'Array.prototype.push = function () { throw new Error("push") };',
          'Object.prototype.__lookupGetter__ = function () { return function () {} };',
          'Object.prototype.__lookupSetter__ = function () { return function () {} };',
        ].join('\n'),
      );
      const result = await sandbox.execute('value = [1, 2]; print("a", "b"); value');
      expect(result.error).toBeNull();
      expect(result.stdout).toBe('a b\n[ 1, 2 ]\n');
      expect(result.locals).toEqual({ value: 'array' });
    });
  });
});
