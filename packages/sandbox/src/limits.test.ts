import { RlmError } from '@rlm/protocol';
import { describe, expect, it } from 'vitest';
import { createSandbox } from './create-sandbox.js';
import { delayedFunction, ISOLATIONS, withSandbox } from './sandbox-cases.test-helpers.js';
import { ABORT_GRACE_MS } from './worker-watchdog.js';

const FAST_CPU = { cpuSliceMs: 300 };

describe.each(ISOLATIONS)('sandbox limits (%s)', (isolation) => {
  it.each([
    ['a plain loop', 'while (true) {}'],
    ['a loop in try/catch', 'try { while (true) {} } catch (e) {}'],
    [
      'a loop inside .then',
      'Promise.resolve().then(() => { for (;;) {} }); await null; await null;',
    ],
    ['a catastrophic regex', '/^(a+)+$/.test("a".repeat(40) + "b")'],
  ])('stops %s at the CPU deadline and stays usable', async (_label, code) => {
    await withSandbox({ isolation, limits: FAST_CPU }, async (sandbox) => {
      await sandbox.execute('const before = 1');
      const result = await sandbox.execute(code);
      expect(result.error).toMatchObject({ code: 'sandbox.timeout' });
      expect(result.stderr).toContain('sandbox.timeout');
      expect((await sandbox.execute('before + 1')).stdout).toBe('2\n');
    });
  });

  it('fails at once when a block awaits with nothing in flight', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      const result = await sandbox.execute('await new Promise(() => {})');
      expect(result.error).toMatchObject({ code: 'sandbox.deadlock' });
      // At once, rather than at the block's wall-clock limit (10 min).
      expect(result.executionTime).toBeLessThan(15_000);
    });
  });

  it('stops a block past its wall-clock deadline and drops the late result', async () => {
    const slow = delayedFunction(2_000);
    await withSandbox(
      { isolation, functions: { slow }, limits: { blockTimeoutMs: 200 } },
      async (sandbox) => {
        const result = await sandbox.execute('var got = "none";\ngot = await slow()');
        expect(result.error).toMatchObject({ code: 'sandbox.timeout' });
        expect(slow.aborted).toBe(1);
        expect((await sandbox.execute('got')).stdout).toBe("'none'\n");
      },
    );
  });

  it('applies the wall-clock deadline to CPU-bound code too', async () => {
    await withSandbox(
      { isolation, limits: { cpuSliceMs: 60_000, blockTimeoutMs: 300 } },
      async (sandbox) => {
        const result = await sandbox.execute('for (;;) {}');
        expect(result.error).toMatchObject({ code: 'sandbox.timeout' });
        expect(result.error?.message).toContain('wall-clock');
      },
    );
  });

  it('reports memory exhaustion and recovers the earlier state', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      await sandbox.execute('const earlier = "still here"');
      const bombs = [
        'const big = []; while (true) big.push("x".repeat(1000) + big.length)',
        'const m = new Map(); for (let i = 0; ; i++) m.set(i, { i })',
        'let s = "ab"; const parts = []; while (true) { parts.push(s); s = s + s.slice(0, 1 << 20) }',
      ];
      for (const bomb of bombs) {
        const result = await sandbox.execute(bomb);
        expect(result.error).toMatchObject({ code: 'sandbox.out_of_memory' });
        expect(sandbox.poisoned).toBe(false);
        expect((await sandbox.execute('earlier')).stdout).toBe("'still here'\n");
      }
    });
  });

  it('clears only what the exhausting block created, not what the host set before it', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      await sandbox.execute('var earlier = 1');
      await sandbox.setVariable('fromHost', 'kept');
      const result = await sandbox.execute(
        'var big = []; while (true) big.push("x".repeat(1000) + big.length)',
      );
      expect(result.error).toMatchObject({ code: 'sandbox.out_of_memory' });
      expect(result.stderr).toContain('were cleared: big\n');
      expect(await sandbox.getVariable('fromHost')).toBe('kept');
      expect(await sandbox.getVariable('earlier')).toBe(1);
    });
  });

  it('gives a clean stack-overflow error for deep recursion', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      const result = await sandbox.execute('function down(n) { return down(n + 1) + 1 }\ndown(0)');
      expect(result.error).toMatchObject({ name: 'InternalError', code: 'sandbox.stack_overflow' });
      expect((await sandbox.execute('1 + 1')).stdout).toBe('2\n');
    });
  });

  it('stops a block awaiting host calls when its signal aborts', async () => {
    const slow = delayedFunction(60_000);
    await withSandbox({ isolation, functions: { slow } }, async (sandbox) => {
      const controller = new AbortController();
      const running = sandbox.execute('await slow()', { signal: controller.signal });
      setTimeout(() => controller.abort(), 50);
      const started = Date.now();
      const result = await running;
      expect(result.error).toMatchObject({ code: 'sandbox.aborted' });
      // Settled by the abort, not by the call (60 s) or the block's wall-clock limit (10 min).
      expect(Date.now() - started).toBeLessThan(15_000);
      expect((await sandbox.execute('3')).stdout).toBe('3\n');
    });
  });

  it('rejects with sandbox.disposed after dispose, which is idempotent', async () => {
    const sandbox = await createSandbox({ isolation });
    await sandbox.dispose();
    await sandbox.dispose();
    expect(sandbox.disposed).toBe(true);
    expect(sandbox.poisoned).toBe(false);
    await expect(sandbox.execute('1')).rejects.toSatisfy((error) =>
      RlmError.is(error, 'sandbox.disposed'),
    );
  });

  it('disposes the sandbox when the creation signal aborts', async () => {
    const controller = new AbortController();
    const sandbox = await createSandbox({ isolation, signal: controller.signal });
    controller.abort();
    await expect(sandbox.execute('1')).rejects.toSatisfy((error) =>
      RlmError.is(error, 'sandbox.disposed'),
    );
  });
});

describe('inline isolation', () => {
  it('reports itself poisoned after an engine fault and then refuses blocks', async () => {
    // A QuickJS stack limit above the main thread's native stack lets V8 overflow first: a host
    // exception escaping the engine, which must poison the sandbox rather than be trusted.
    await withSandbox(
      { isolation: 'inline', limits: { stackBytes: 4 * 1024 * 1024 } },
      async (sandbox) => {
        const result = await sandbox.execute(
          'function down(n) { return down(n + 1) + 1 }\ndown(0)',
        );
        expect(result.error).toMatchObject({ code: 'sandbox.poisoned' });
        expect(sandbox.poisoned).toBe(true);
        await expect(sandbox.execute('1')).rejects.toSatisfy((error) =>
          RlmError.is(error, 'sandbox.poisoned'),
        );
      },
    );
  });
});

describe('worker isolation', () => {
  it('stops CPU-bound code promptly when the signal aborts', async () => {
    await withSandbox({ isolation: 'worker' }, async (sandbox) => {
      const controller = new AbortController();
      const running = sandbox.execute('while (true) {}', { signal: controller.signal });
      await new Promise((resolve) => setTimeout(resolve, 200));
      const abortedAt = Date.now();
      controller.abort();
      const result = await running;
      expect(result.error).toMatchObject({ code: 'sandbox.aborted' });
      // Guest code sees the abort within milliseconds, and the watchdog settles the block after
      // ABORT_GRACE_MS at the latest; the bound is generous because the machine is shared.
      expect(Date.now() - abortedAt).toBeLessThan(ABORT_GRACE_MS + 4_500);
    });
  });

  it('disposes promptly while a block is running', async () => {
    const sandbox = await createSandbox({ isolation: 'worker' });
    const running = sandbox.execute('while (true) {}');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = Date.now();
    await sandbox.dispose();
    const outcome = await running.then(
      (result) => result.error?.code,
      (error: unknown) => (RlmError.is(error) ? error.code : 'unexpected'),
    );
    expect(['sandbox.aborted', 'sandbox.disposed']).toContain(outcome);
    // Settled by dispose (at most a 1 s grace, then the worker is terminated), not the CPU limit.
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('keeps the host event loop responsive while guest code spins', async () => {
    await withSandbox({ isolation: 'worker', limits: { cpuSliceMs: 1_000 } }, async (sandbox) => {
      let ticks = 0;
      const timer = setInterval(() => {
        ticks += 1;
      }, 10);
      await sandbox.execute('while (true) {}');
      clearInterval(timer);
      expect(ticks).toBeGreaterThan(10);
    });
  });
});
