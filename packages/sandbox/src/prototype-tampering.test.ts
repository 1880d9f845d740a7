import { describe, expect, it } from 'vitest';
import { ISOLATIONS, withSandbox } from './sandbox-cases.test-helpers.js';

/**
 * Changes guest code may make to built-ins. Each can break the guest's own code; none may change
 * what the scaffold prints, answers or reports to the host.
 */
const TAMPERING = {
  'a throwing setter at Array.prototype[0]':
    'Object.defineProperty(Array.prototype, "0", { set(v) { throw new Error("setter") }, configurable: true })',
  'a silent setter at Array.prototype[0]':
    'Object.defineProperty(Array.prototype, "0", { set(v) {}, configurable: true })',
  'Object.prototype.toJSON': 'Object.prototype.toJSON = function () { return "hijacked" }',
  'a looping getter at Object.prototype.get':
    'Object.defineProperty(Object.prototype, "get", { get() { for (;;) {} }, configurable: true })',
  'Object.prototype.value':
    'Object.defineProperty(Object.prototype, "value", { get() { return "wrong" }, configurable: true })',
  'RegExp.prototype.exec': 'RegExp.prototype.exec = function () { for (;;) {} }',
  'String.prototype methods':
    'String.prototype.slice = () => "x"; String.prototype.indexOf = () => -1; String.prototype.repeat = () => ""',
  'Array.prototype methods':
    'Array.prototype.push = function () { for (;;) {} }; Array.prototype.join = () => "j"; Array.prototype[Symbol.iterator] = function* () {}',
  'JSON and Reflect': 'JSON.stringify = () => "s"; JSON.parse = () => 0; Reflect.apply = () => 0',
  'Object statics':
    'Object.keys = () => []; Object.defineProperty = () => {}; Object.freeze = (o) => o',
  'the Map and Set iterators':
    'Object.getPrototypeOf(new Map().entries()).next = () => ({ done: true }); Object.getPrototypeOf(new Set().values()).next = () => ({ done: true })',
  'Promise.prototype.then and constructor':
    'Promise.prototype.then = function () { for (;;) {} }; Promise.prototype.constructor = function () {}',
};

describe.each(ISOLATIONS)('prototype tampering stays in the guest (%s)', (isolation) => {
  it.each(Object.entries(TAMPERING))(
    'prints, answers and reports errors as before after %s',
    async (label, tampering) => {
      await withSandbox(
        { isolation, context: 'ctx', limits: { cpuSliceMs: 2_000 } },
        async (sandbox) => {
          await sandbox.execute('var kept = [1, { a: "b" }]');
          expect((await sandbox.execute(tampering)).error).toBeNull();
          const printed = await sandbox.execute(
            [
              // Built without the iteration protocol, which some of the tampering replaces.
              'const m = new Map(); m.set(1, 2); const s = new Set(); s.add("s");',
              'print("shown", [1, 2], { a: 1 }, m, s)',
              'FINAL({ answer: [1, 2] })',
            ].join('\n'),
          );
          // QuickJS stores a block's completion value by assignment: a setter at
          // Object.prototype.value takes it (in the guest's own block), so it is not printed.
          const completion = label === 'Object.prototype.value' ? '' : `'{"answer":[1,2]}'\n`;
          expect(printed.stdout).toBe(
            `shown [ 1, 2 ] { a: 1 } Map(1) { 1 => 2 } Set(1) { 's' }\n${completion}`,
          );
          expect(printed.finalAnswer).toBe('{"answer":[1,2]}');
          expect(printed.locals).toMatchObject({ kept: 'array' });
          const thrown = await sandbox.execute('throw new TypeError("boom")');
          expect(thrown.error).toMatchObject({ name: 'TypeError', message: 'boom', line: 1 });
          expect(await sandbox.getVariable('kept')).toEqual([1, { a: 'b' }]);
          expect(await sandbox.listVariables()).toContainEqual({
            name: 'kept',
            type: 'array',
            size: 13,
          });
          expect((await sandbox.execute('print(context)')).stdout).toBe('ctx\n');
          expect(sandbox.poisoned).toBe(false);
        },
      );
    },
  );

  it('still serves host calls, whose results guest code receives as before', async () => {
    const ask = { description: 'answers', call: async () => ({ list: [1, 2], text: 't' }) };
    await withSandbox({ isolation, functions: { ask } }, async (sandbox) => {
      await sandbox.execute(TAMPERING['a silent setter at Array.prototype[0]']);
      await sandbox.execute(TAMPERING['Object.prototype.toJSON']);
      const result = await sandbox.execute(
        'const got = await ask("q")\ngot.list.length + got.text',
      );
      expect(result.stdout).toBe("'2t'\n");
    });
  });
});

// QuickJS joins a template literal with substitutions through `String.prototype.concat`, looked up
// at each use: until 2026-11-26 the scaffold wrote its results with templates, so a guest that
// replaced `concat` broke every later block (the host failed to parse what the scaffold wrote).
describe.each(ISOLATIONS)('a replaced String.prototype.concat (%s)', (isolation) => {
  it('changes the guest’s own templates, never what the scaffold writes', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      const replaced = await sandbox.execute(
        // biome-ignore lint/suspicious/noTemplateCurlyInString: guest code with a template
        'String.prototype.concat = function () { return "HACKED" }; var n = 1; print(`a${n}b`)',
      );
      expect(replaced.stdout).toBe('HACKED\n');
      expect(replaced.locals).toEqual({ n: 'number' });
      const next = await sandbox.execute(
        'print("shown", [1, 2], { a: 1 }, 10n, function f() {}); console.assert(false, "no"); FINAL_VAR("gone")',
      );
      expect(next.stdout).toBe(
        "shown [ 1, 2 ] { a: 1 } 10n [Function: f]\n'Error: Variable \\'gone\\' not found. Available variables: n'\n",
      );
      expect(next.stderr).toBe('Assertion failed: no\n');
      const thrown = await sandbox.execute('throw new TypeError("boom")');
      expect(thrown.error).toMatchObject({ name: 'TypeError', message: 'boom', line: 1 });
      expect(await sandbox.execute('SHOW_VARS()')).toMatchObject({
        stdout: "'Variables: n (number)'\n",
      });
    });
  });
});
