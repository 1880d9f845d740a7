import { describe, expect, it } from 'vitest';
import { ISOLATIONS, withSandbox } from '../sandbox-cases.test-helpers.js';

/**
 * Each case plants a value whose traps or getters count their calls in `hits`, in one block; the
 * block ends (naming the types of its variables) and the host lists the variables with their
 * sizes. Neither may run any of them.
 */
const TRAPS =
  'var hits = 0; var count = () => { hits++ };' +
  'var traps = { get(t, k, r) { count(); return Reflect.get(t, k, r) },' +
  ' getPrototypeOf(t) { count(); return Reflect.getPrototypeOf(t) },' +
  ' ownKeys(t) { count(); return Reflect.ownKeys(t) },' +
  ' getOwnPropertyDescriptor(t, k) { count(); return Reflect.getOwnPropertyDescriptor(t, k) },' +
  ' has(t, k) { count(); return Reflect.has(t, k) } };';

const CASES: readonly (readonly [string, string, string])[] = [
  ['an object Proxy', 'var value = new Proxy({ a: 1 }, traps);', 'object'],
  ['an array Proxy (its length)', 'var value = new Proxy([1, 2, 3], traps);', 'array'],
  [
    'a function Proxy (its source text)',
    'var value = new Proxy(function f() {}, traps);',
    'function',
  ],
  ['a revocable Proxy', 'var value = Proxy.revocable({ a: 1 }, traps).proxy;', 'object'],
  ['a Proxy inside an object', 'var value = { inner: new Proxy({ a: 1 }, traps) };', 'object'],
  ['a Proxy as a prototype', 'var value = Object.create(new Proxy({}, traps));', 'object'],
  [
    'a bound function whose name is a getter',
    'var value = function f() {}.bind(null);' +
      'Object.defineProperty(value, "name", { get() { count(); return "n" } });',
    'function',
  ],
  [
    'a class with a static getter name',
    'var value = class Shape { static get name() { count(); return "n" } };',
    'class',
  ],
  [
    'a bound class whose name is a getter',
    'var value = (class Shape {}).bind(null);' +
      'Object.defineProperty(value, "name", { get() { count(); return "n" } });',
    'function',
  ],
  [
    'a Symbol.toStringTag getter on a prototype',
    'var value = Object.create(Object.create({ get [Symbol.toStringTag]() { count(); return "T" } }));',
    'object',
  ],
];

describe.each(ISOLATIONS)('the variable listing runs no guest code (%s)', (isolation) => {
  it.each(CASES)('%s', async (_label, plant, type) => {
    await withSandbox({ isolation }, async (sandbox) => {
      const planted = await sandbox.execute(TRAPS + plant);
      expect(planted.error).toBeNull();
      expect(planted.locals['value']).toBe(type);
      const listed = await sandbox.listVariables();
      expect(listed.find((entry) => entry.name === 'value')?.type).toBe(type);
      expect((await sandbox.execute('hits')).stdout).toBe('0\n');
    });
  });

  it('keeps Proxy working as the guest knows it', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      const result = await sandbox.execute(
        [
          'const seen = [];',
          'const p = new Proxy({}, { get: (t, k) => "got " + String(k) });',
          'seen.push(p.x, typeof Proxy, Proxy.name, Proxy.length, "prototype" in Proxy);',
          'try { Proxy({}, {}) } catch (e) { seen.push(e instanceof TypeError) }',
          'try { new Proxy(1, {}) } catch (e) { seen.push(e instanceof TypeError) }',
          'const r = Proxy.revocable({ a: 1 }, {}); r.revoke();',
          'try { r.proxy.a } catch (e) { seen.push(e instanceof TypeError) }',
          'seen.push(Function.prototype.toString.call(Proxy).includes("[native code]"));',
          'seen.push(Function.prototype.toString.call(Proxy.revocable).includes("[native code]"));',
          'seen.push(Object.getOwnPropertyNames(Proxy).sort().join());',
          'print(JSON.stringify(seen))',
        ].join('\n'),
      );
      expect(result.error).toBeNull();
      expect(JSON.parse(result.stdout)).toEqual([
        'got x',
        'function',
        'Proxy',
        2,
        false,
        true,
        true,
        true,
        true,
        true,
        'length,name,revocable',
      ]);
    });
  });
});
