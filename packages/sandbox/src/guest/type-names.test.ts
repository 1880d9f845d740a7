import { describe, expect, it } from 'vitest';
import { ISOLATIONS, withSandbox } from '../sandbox-cases.test-helpers.js';

const MADE = [
  'var revocable = Proxy.revocable([1], {}); var viaProxy = revocable.proxy;',
  'var moved = new Map([[1, 2]]); Object.setPrototypeOf(moved, Object.prototype);',
  'var lookalike = Object.create(Map.prototype); var plain = { a: 1 }; var wrapped = new Proxy({}, {});',
  'var when = new Date(0); var pattern = /x/g; var unique = new Set([1]);',
].join('\n');

const TYPES = {
  revocable: 'object',
  viaProxy: 'array',
  moved: 'map',
  lookalike: 'object',
  plain: 'object',
  wrapped: 'object',
  when: 'date',
  pattern: 'regexp',
  unique: 'set',
};

// An object's built-in kind is remembered after the first time its type is named (the checks
// that tell it throw, which costs QuickJS a stack trace each: see brand-checks.ts). These pin
// that the types stay what the checks say, block after block, including the one that can change.
describe.each(ISOLATIONS)('variable types named again in later blocks (%s)', (isolation) => {
  it('stay the kind each object was made as, whatever its prototype says', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      expect((await sandbox.execute(MADE)).locals).toEqual(TYPES);
      expect((await sandbox.execute('1')).locals).toEqual(TYPES);
      const listed = await sandbox.listVariables();
      expect(Object.fromEntries(listed.map((entry) => [entry.name, entry.type]))).toEqual(TYPES);
    });
  });

  it('follow a Proxy of an array until it is revoked', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      await sandbox.execute(MADE);
      const revoked = await sandbox.execute('revocable.revoke()');
      expect(revoked.locals).toEqual({ ...TYPES, viaProxy: 'object' });
    });
  });

  it('print each kind as before once its type was named', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      await sandbox.execute(MADE);
      const printed = await sandbox.execute(
        'print(moved, lookalike, plain, when, pattern, unique)',
      );
      expect(printed.stdout).toBe(
        'Map(1) { 1 => 2 } Map {} { a: 1 } 1970-01-01T00:00:00.000Z /x/g Set(1) { 1 }\n',
      );
    });
  });
});

describe.each(ISOLATIONS)('function types named again in later blocks (%s)', (isolation) => {
  it('tell classes from functions, and never read a bound function’s name getter', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      const made = await sandbox.execute(
        [
          'class Shape {}; function area() { return 1 }; var wrapped = new Proxy(Shape, {});',
          'var reads = 0; var bound = area.bind(null);',
          'Object.defineProperty(bound, "name", { get() { reads++; return "n" } });',
        ].join('\n'),
      );
      const types = {
        Shape: 'class',
        area: 'function',
        wrapped: 'function',
        reads: 'number',
        bound: 'function',
      };
      expect(made.locals).toEqual(types);
      expect(Number((await sandbox.execute('reads')).stdout)).toBe(0);
      const printed = await sandbox.execute('print(Shape, area); reads');
      expect(printed.stdout).toBe('[class Shape] [Function: area]\n0\n');
      expect(printed.locals).toEqual(types);
    });
  });
});
