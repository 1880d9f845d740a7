import { describe, expect, it } from 'vitest';
import { ISOLATIONS, withSandbox } from './sandbox-cases.test-helpers.js';

const HOST_NAMES = [
  'process',
  'require',
  'module',
  'Buffer',
  'global',
  'fetch',
  'setTimeout',
  'setInterval',
  'setImmediate',
  'queueMicrotask',
  'WebAssembly',
  'hostCall',
  'os',
  'std',
];

describe.each(ISOLATIONS)('escape attempts (%s)', (isolation) => {
  it('finds no host object through constructor chains or Function("return this")', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      const result = await sandbox.execute(
        [
          'const viaCtor = ({}).constructor.constructor("return this")();',
          'const viaFunction = Function("return this")();',
          'const viaAsync = (async () => {}).constructor("return this");',
          '[viaCtor === globalThis, viaFunction === globalThis, typeof viaCtor.process, typeof (await viaAsync()).require]',
        ].join('\n'),
      );
      expect(result.stdout).toBe("[ true, true, 'undefined', 'undefined' ]\n");
    });
  });

  it('exposes no host globals', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      const result = await sandbox.execute(
        `const names = Object.getOwnPropertyNames(globalThis);\nJSON.stringify(${JSON.stringify(HOST_NAMES)}.filter((n) => names.includes(n) || typeof globalThis[n] !== 'undefined'))`,
      );
      expect(result.stdout).toBe("'[]'\n");
    });
  });

  it('cannot load modules with import()', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      const result = await sandbox.execute(
        'const outcomes = [];\nfor (const m of ["fs", "node:child_process", "./x.js"]) {\n  try { await import(m); outcomes.push("loaded " + m) } catch (e) { outcomes.push(e.name) }\n}\noutcomes',
      );
      expect(result.stdout).not.toContain('loaded');
    });
  });

  it('keeps prototype pollution and redefined globals inside the guest', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      await sandbox.execute(
        'Object.prototype.polluted = "yes"; Array.prototype.join = () => "hacked";\nJSON.stringify = () => "x"; Object.keys = () => [];',
      );
      expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
      const result = await sandbox.execute('const v = [1, 2]; print(v, { a: 1 }); FINAL("ok")');
      expect(result.stdout).toContain('[ 1, 2 ]');
      expect(result.finalAnswer).toBe('ok');
      expect(await sandbox.getVariable('v')).toEqual([1, 2]);
    });
  });

  it('copies every value crossing the boundary', async () => {
    const shared = { count: 1 };
    const received: unknown[] = [];
    const tool = {
      description: 'returns a shared object',
      call: async (args: unknown[]) => {
        received.push(args[0]);
        return shared;
      },
    };
    await withSandbox({ isolation, functions: { tool } }, async (sandbox) => {
      await sandbox.execute(
        'const mine = { n: 1 };\nconst got = await tool(mine);\ngot.count = 99; mine.n = 2;',
      );
      expect(shared.count).toBe(1);
      expect(received[0]).toEqual({ n: 1 });
    });
  });

  it('survives an output flood and a million console.log lines', async () => {
    await withSandbox(
      { isolation, limits: { maxOutputChars: 1_000, cpuSliceMs: 2_000 } },
      async (sandbox) => {
        const flood = await sandbox.execute('print("x".repeat(10_000_000))');
        expect(flood.stdout.length).toBeLessThan(1_100);
        expect(flood.stdout).toContain('… + [9999001 chars...]');
        const lines = await sandbox.execute('for (let i = 0; i < 1e6; i++) console.log(i)');
        expect(lines.stdout.length).toBeLessThan(1_100);
        expect(lines.error === null || lines.error.code === 'sandbox.timeout').toBe(true);
        expect((await sandbox.execute('"alive"')).stdout).toBe("'alive'\n");
      },
    );
  });

  it('stays responsive to hostile getters and proxies after a block', async () => {
    await withSandbox({ isolation, limits: { cpuSliceMs: 500 } }, async (sandbox) => {
      const result = await sandbox.execute(
        'Object.defineProperty(globalThis, "trap", { get() { for (;;) {} }, configurable: true });\nvar prox = new Proxy({}, { get() { for (;;) {} }, ownKeys() { for (;;) {} }, getPrototypeOf() { for (;;) {} } });\n1',
      );
      expect(result.locals).toMatchObject({ trap: 'accessor', prox: 'object' });
      expect(sandbox.poisoned).toBe(false);
      expect((await sandbox.listVariables()).map((v) => v.name).sort()).toEqual(['prox', 'trap']);
    });
  });

  it('does not let unawaited work from one block run into the next', async () => {
    await withSandbox({ isolation, limits: { cpuSliceMs: 300 } }, async (sandbox) => {
      const first = await sandbox.execute(
        'var ticks = 0;\n(async () => { for (;;) { ticks++; await null; } })();\n1',
      );
      expect(first.error).toMatchObject({ code: 'sandbox.timeout' });
      const before = await sandbox.getVariable('ticks');
      const second = await sandbox.execute('ticks');
      expect(second.stdout).toBe(`${String(before)}\n`);
    });
  });
});
