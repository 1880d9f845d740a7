import { describe, expect, it } from 'vitest';
import { ISOLATIONS, withSandbox } from '../sandbox-cases.test-helpers.js';

/** Getters the scaffold would run if it asked these values for more than their own data. */
const PLANTED = [
  'var reads = 0;',
  'var tagged = { a: 1, get [Symbol.toStringTag]() { reads++; return "T" } };',
  'var inherits = Object.create({ get [Symbol.toStringTag]() { reads++; return "T" } });',
  'function area() { return 1 }',
  'var bound = area.bind(null);',
  'Object.defineProperty(bound, "name", { get() { reads++; return "n" } });',
  'class Shape {}',
].join('\n');

describe.each(ISOLATIONS)('listVariables from the host (%s)', (isolation) => {
  it('runs no getter of a listed value (Symbol.toStringTag, a bound function’s name)', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      expect((await sandbox.execute(PLANTED)).error).toBeNull();
      const before = await sandbox.getVariable('reads');
      const listed = await sandbox.listVariables();
      expect(Object.fromEntries(listed.map((entry) => [entry.name, entry.type]))).toEqual({
        reads: 'number',
        tagged: 'object',
        inherits: 'object',
        area: 'function',
        bound: 'function',
        Shape: 'class',
      });
      expect(listed.find((entry) => entry.name === 'tagged')?.size).toBe('{"a":1}'.length);
      expect(await sandbox.getVariable('tagged')).toEqual({ a: 1 });
      expect(await sandbox.getVariable('reads')).toBe(before);
    });
  });
});
