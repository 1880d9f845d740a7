import { describe, expect, it } from 'vitest';
import { withSandbox } from './sandbox-cases.test-helpers.js';

/**
 * Model code that would run if the scaffold hashed, compared or asked anything of these objects
 * after the block: every such call is recorded in `calls`, which the host reads as data.
 */
const PLANTED = `
calls = []
class Name(str):
    def __hash__(self):
        calls.append('hash')
        return str.__hash__(self)
    def __eq__(self, other):
        calls.append('eq')
        return str.__eq__(self, other)
    def startswith(self, *args):
        calls.append('startswith')
        return str.startswith(self, *args)
class Meta(type):
    @property
    def __name__(cls):
        calls.append('type name')
        return 'Renamed'
class Odd(metaclass=Meta):
    pass
class Items(dict):
    def items(self):
        calls.append('items')
        return dict.items(self)
class Dying:
    def __del__(self):
        calls.append('del')
import types
odd = Odd()
view = types.MappingProxyType(Items(a=1))
globals()[Name('sneaky')] = 7
print = Dying()
planted = len(calls)
`;

describe('variable listing', () => {
  it('runs no model code after the block: no __hash__, __eq__, method, metaclass property or __del__', async () => {
    await withSandbox({}, async (sandbox) => {
      const made = await sandbox.execute(PLANTED);
      expect(made.error).toBeNull();
      expect(made.locals).toMatchObject({ sneaky: 'number', odd: 'Odd', view: 'mappingproxy' });
      const listed = await sandbox.listVariables();
      expect(listed).toEqual(
        expect.arrayContaining([
          { name: 'sneaky', type: 'number', size: 1 },
          { name: 'odd', type: 'Odd', size: expect.any(Number) },
          { name: 'view', type: 'mappingproxy', size: '{"a": 1}'.length },
        ]),
      );
      expect(await sandbox.getVariable('view')).toEqual({ a: 1 });
      expect(await sandbox.getVariable('sneaky')).toBe(7);
      const planted = await sandbox.getVariable('planted');
      expect(await sandbox.getVariable('calls')).toHaveLength(planted as number);
      // The next block is model time again: the displaced value may go now.
      const next = await sandbox.execute('sneaky + 1');
      expect(next.stdout).toBe('8\n');
    });
  });
});
