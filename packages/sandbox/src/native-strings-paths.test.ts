import { describe, expect, it } from 'vitest';
import { hostStringCallsHandled } from './engine/host-string-ops.js';
import { ISOLATIONS, withSandbox } from './sandbox-cases.test-helpers.js';
import { DEFAULT_NATIVE_STRING_MIN_CHARS } from './sandbox-options.js';

/** A context just over the default threshold, with a few things to find near its end. */
const LINE = 'lorem ipsum dolor sit amet\n';
const CONTEXT = `${LINE.repeat(Math.ceil(DEFAULT_NATIVE_STRING_MIN_CHARS / LINE.length))}id=42 id=7\nend`;

/** Runs `code` in an inline sandbox over CONTEXT: what it printed and how many host answers it took. */
async function run(code: string): Promise<{ stdout: string; hostCalls: number }> {
  return withSandbox({ isolation: 'inline', context: CONTEXT }, async (sandbox) => {
    const before = hostStringCallsHandled();
    const result = await sandbox.execute(code);
    expect(result.error).toBeNull();
    return { stdout: result.stdout.trim(), hostCalls: hostStringCallsHandled() - before };
  });
}

describe('the host does the searches of a long context', () => {
  it('answers indexOf, lastIndexOf and includes on the context', async () => {
    const { stdout, hostCalls } = await run(
      'print(context.indexOf("id="), context.lastIndexOf("id="), context.includes("end"), context.indexOf("nope"))',
    );
    const at = CONTEXT.indexOf('id=');
    expect(stdout).toBe(`${at} ${CONTEXT.lastIndexOf('id=')} true -1`);
    expect(hostCalls).toBe(4);
  });

  it('answers exec in a loop, test, search and a global match with one call each', async () => {
    const { stdout, hostCalls } = await run(`
      const re = /id=(?<n>\\d+)/g; const found = []; let m;
      while ((m = re.exec(context)) !== null) found.push(m.groups.n + '@' + m.index);
      print(found.join(','), /end$/.test(context), context.search(/id/), context.match(/\\d+/g).join('|'));`);
    const at = CONTEXT.indexOf('id=');
    expect(stdout).toBe(`42@${at},7@${at + 6} true ${at} 42|7`);
    // exec: the first match and the next (found 1 character on: the loop goes on in QuickJS,
    // faster for dense matches, which also finds the null); test, search, one global match
    expect(hostCalls).toBe(5);
  });

  it('splits by a RegExp without captures on the host, and with captures in QuickJS', async () => {
    const { stdout, hostCalls } = await run(
      'print(context.split(/\\n/).length, context.split(/\\n/, 3).join("|").length, context.split(/(\\n)/).length)',
    );
    const lines = CONTEXT.split('\n');
    expect(stdout).toBe(
      `${lines.length} ${lines.slice(0, 3).join('|').length} ${lines.length * 2 - 1}`,
    );
    expect(hostCalls).toBe(2);
  });

  it('leaves a string the host does not hold to QuickJS', async () => {
    const { stdout, hostCalls } = await run(
      'const copy = context.slice(1); print(copy.indexOf("id="), /id/.exec(copy).index)',
    );
    expect(stdout).toBe(`${CONTEXT.indexOf('id=') - 1} ${CONTEXT.indexOf('id') - 1}`);
    expect(hostCalls).toBe(0);
  });

  it('leaves patterns whose backtracking can explode to QuickJS', async () => {
    const { stdout, hostCalls } = await run(
      'print(/(?:\\w+\\s?)+=/.exec(context).index, /(\\d)\\1/.test(context))',
    );
    expect(stdout).toBe(`${CONTEXT.search(/(?:\w+\s?)+=/)} false`);
    expect(hostCalls).toBe(0);
  });

  it("runs guest code's own exec when RegExp.prototype.exec is replaced", async () => {
    const { stdout, hostCalls } = await run(`
      const seen = [];
      RegExp.prototype.exec = function (s) { seen.push(s.length); return null; };
      print(/id/.test(context), context.match(/id/g), seen.length)`);
    expect(stdout).toBe('false null 2');
    expect(hostCalls).toBe(0);
  });

  it("runs a RegExp subclass's exec for every match of a global match", async () => {
    const { stdout, hostCalls } = await run(`
      let calls = 0;
      class Counting extends RegExp { exec(s) { calls++; return super.exec(s); } }
      print(context.match(new Counting('id=\\\\d+', 'g')).join('|'), calls)`);
    expect(stdout).toBe('id=42|id=7 3');
    // the subclass's exec calls ours through super: the host answers the first two, QuickJS the
    // last (the second match was close to the first)
    expect(hostCalls).toBe(2);
  });

  it('shows guest code running inside a split or a replace the exec it installed', async () => {
    const { stdout } = await run(`
      const saved = RegExp.prototype.exec; let seen;
      const parts = context.split(/\\n/, { valueOf() { seen = RegExp.prototype.exec === saved; return 2; } });
      const replaced = context.replace(/id=\\d+/, () => String(RegExp.prototype.exec === saved));
      print(parts.length, seen, replaced.includes('true id=7'), RegExp.prototype.exec === saved)`);
    expect(stdout).toBe('2 true true true');
  });

  it('keeps a guest getter on lastIndex-free paths and a non-number lastIndex in QuickJS', async () => {
    const { stdout, hostCalls } = await run(`
      const re = /id/g; let reads = 0;
      re.lastIndex = { valueOf() { reads++; return 0; } };
      print(re.exec(context).index, reads)`);
    expect(stdout).toBe(`${CONTEXT.indexOf('id')} 1`);
    expect(hostCalls).toBe(0);
  });
});

describe.each(ISOLATIONS)('the host function behind the methods (%s)', (isolation) => {
  it('is reachable from no global and answers nothing for values it does not hold', async () => {
    await withSandbox({ isolation, context: CONTEXT }, async (sandbox) => {
      const result = await sandbox.execute(`
        const names = Object.getOwnPropertyNames(globalThis).filter((n) => /native/i.test(n));
        const other = 'x'.repeat(70000);
        print(names.length, other.indexOf('y'), String.prototype.indexOf.call(context, { toString: () => 'id=' }) > 0,
          String.prototype.indexOf.name, String.prototype.indexOf.length, RegExp.prototype.exec.length,
          RegExp.prototype[Symbol.match].name, Object.getOwnPropertyDescriptor(String.prototype, 'includes').enumerable)`);
      expect(result.error).toBeNull();
      expect(result.stdout.trim()).toBe('0 -1 true indexOf 1 1 [Symbol.match] false');
    });
  });
});
