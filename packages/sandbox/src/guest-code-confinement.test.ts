import { describe, expect, it } from 'vitest';
import { createSandbox } from './create-sandbox.js';
import { ISOLATIONS, TEST_MEMORY_BYTES, withSandbox } from './sandbox-cases.test-helpers.js';

/** A host function that counts its calls (and the ones made once `closed` is set). */
function countingFunction() {
  const fn = {
    description: 'counts calls',
    calls: 0,
    callsAfterClose: 0,
    closed: false,
    call: async () => {
      fn.calls += 1;
      if (fn.closed) fn.callsAfterClose += 1;
      return 'pong';
    },
  };
  return fn;
}

const CPU = { cpuSliceMs: 500 };

describe.each(ISOLATIONS)(
  'guest code runs only inside a block, under its budget (%s)',
  (isolation) => {
    it.each([
      ['a Proxy completion value whose trap loops', 'new Proxy({}, { ownKeys() { for (;;) {} } })'],
      ['a thrown object whose message getter loops', 'throw { get message() { for (;;) {} } }'],
      [
        'a thrown Proxy whose name trap loops',
        'throw new Proxy(new Error("x"), { get(t, k) { if (k === "name") for (;;) {} return t[k] } })',
      ],
    ])('stops %s at the block’s CPU limit', async (_label, code) => {
      await withSandbox({ isolation, limits: CPU }, async (sandbox) => {
        const result = await sandbox.execute(code);
        expect(result.error).toMatchObject({ code: 'sandbox.timeout' });
        expect((await sandbox.execute('1 + 1')).stdout).toBe('2\n');
      });
    });

    it('refuses host calls from traps and getters reached after the block has settled', async () => {
      const ping = countingFunction();
      await withSandbox({ isolation, functions: { ping }, limits: CPU }, async (sandbox) => {
        await sandbox.execute('new Proxy({}, { ownKeys() { ping(); return [] } })');
        await sandbox.execute('throw { get message() { ping(); return "m" } }');
        expect(ping.calls).toBe(0);
      });
    });

    it('reads Proxy variables for the host under the block limits, never calling the host', async () => {
      const ping = countingFunction();
      await withSandbox({ isolation, functions: { ping }, limits: CPU }, async (sandbox) => {
        await sandbox.execute(
          [
            'var looping = new Proxy({}, { ownKeys() { ping(); for (;;) {} } });',
            'var loud = new Proxy({}, { ownKeys() { ping(); print("from a trap"); return [] } });',
            'var named = (function () {}).bind(null);',
            'Object.defineProperty(named, "name", { get() { ping(); for (;;) {} } });',
          ].join('\n'),
        );
        await expect(sandbox.getVariable('looping')).rejects.toMatchObject({
          code: 'sandbox.timeout',
        });
        expect(await sandbox.getVariable('loud')).toEqual({});
        const listed = await sandbox.listVariables();
        expect(listed.map((variable) => variable.name)).toEqual(['looping', 'loud', 'named']);
        const next = await sandbox.execute('print("next block")');
        expect(next.stdout).toBe('next block\n');
        expect(next.locals).toMatchObject({ looping: 'object', named: 'function' });
        expect(ping.calls).toBe(0);
      });
    });

    it('refuses every host call once dispose() has begun', async () => {
      const ping = countingFunction();
      const sandbox = await createSandbox({
        isolation,
        functions: { ping },
        limits: { memoryBytes: TEST_MEMORY_BYTES },
      });
      const running = sandbox.execute('for (;;) { ping(); ping(); await ping() }');
      while (ping.calls < 30) await new Promise((resolve) => setTimeout(resolve, 5));
      ping.closed = true;
      await sandbox.dispose();
      await running.catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(ping.callsAfterClose).toBe(0);
    });

    it('drops the jobs a stopped block left behind before the next block', async () => {
      const ping = countingFunction();
      await withSandbox({ isolation, functions: { ping }, limits: CPU }, async (sandbox) => {
        const killed = await sandbox.execute(
          'var leaked = 0;\n(async () => { for (;;) { await null; leaked++; ping() } })();\nfor (;;) {}',
        );
        expect(killed.error).toMatchObject({ code: 'sandbox.timeout' });
        ping.closed = true;
        const next = await sandbox.execute('print(1 + 1); leaked');
        expect(next.error).toBeNull();
        expect(next.stdout).toMatch(/^2\n\d+\n$/);
        const later = await sandbox.execute('leaked');
        expect(later.stdout).toBe(`${next.stdout.split('\n')[1]}\n`);
        expect(ping.callsAfterClose).toBe(0);
      });
    });

    it('never lets a job queued by a host read run in the next block', async () => {
      await withSandbox({ isolation, limits: CPU }, async (sandbox) => {
        await sandbox.execute(
          'var ran = 0;\nvar sneaky = new Proxy({}, { ownKeys() { Promise.resolve().then(() => { ran++ }); return [] } })',
        );
        await sandbox.getVariable('sneaky');
        expect((await sandbox.execute('ran')).stdout).toBe('0\n');
      });
    });
  },
);
