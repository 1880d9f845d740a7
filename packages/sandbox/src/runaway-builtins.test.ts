import { monitorEventLoopDelay } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import type { Sandbox } from './sandbox.js';
import { withSandbox } from './sandbox-cases.test-helpers.js';
import { ABORT_GRACE_MS, OVERRUN_GRACE_MS } from './worker-watchdog.js';

/**
 * One native builtin that runs for seconds: QuickJS checks its interrupt handler only between
 * bytecodes, so neither the CPU limit nor an abort can stop these from inside the engine.
 * `JSON.stringify` of a deeply nested object is quadratic in the depth.
 */
const BUILTINS = {
  'a 6,000,000-item array': {
    // Built in small steps (no step copies what earlier ones built), one block each: each block
    // gets its own CPU budget, which a busy machine stretches, and no step comes near it.
    setup: [
      'var big = []; 1',
      ...Array.from({ length: 12 }, () => 'big.push(new Array(5e5).fill("abcdefghij")); 1'),
    ],
    run: 'JSON.stringify(big).length',
  },
  // Quadratic: seconds even on a machine several times faster than ours, so the watchdog, not
  // the builtin returning, is what ends it.
  'a 60,000-deep object': {
    setup: [
      'var big = {}; 1',
      ...Array.from({ length: 20 }, () => 'for (let i = 0; i < 3_000; i++) big = { big }; 1'),
    ],
    run: 'JSON.stringify(big).length',
  },
};

async function prepare(sandbox: Sandbox, setup: readonly string[]): Promise<void> {
  for (const code of setup) expect((await sandbox.execute(code)).error).toBeNull();
}

const LIMITS = { cpuSliceMs: 1_000, blockTimeoutMs: 2_000, memoryBytes: 512 * 2 ** 20 };
const ABORT_AFTER_MS = 500;
/**
 * Generous slack over the watchdog's own grace: the machine running the tests is shared and
 * busy, and terminating a worker and settling takes a moment. Each builtin runs far longer than
 * this bound would allow without the watchdog.
 */
const SLACK_MS = 2_500;
/** The host's event loop must keep turning: inline, these blocks would stall it for seconds. */
const EVENT_LOOP_BOUND_MS = 2_000;

describe('worker isolation stops what the engine cannot interrupt', () => {
  it.each(Object.entries(BUILTINS))(
    'settles soon after an abort during JSON.stringify of %s, on a fresh engine',
    async (label, { setup, run }) => {
      await withSandbox(
        { isolation: 'worker', context: 'the context', limits: LIMITS },
        async (sandbox) => {
          await sandbox.setVariable('history', ['earlier turn']);
          await sandbox.execute('var keep = 42');
          await prepare(sandbox, setup);
          const delay = monitorEventLoopDelay({ resolution: 20 });
          delay.enable();
          const controller = new AbortController();
          // Measured from the abort itself: a busy machine may fire its timer late.
          let abortedAt = 0;
          const timer = setTimeout(() => {
            abortedAt = Date.now();
            controller.abort();
          }, ABORT_AFTER_MS);
          const result = await sandbox.execute(run, { signal: controller.signal });
          const settledAfterAbort = abortedAt === 0 ? 0 : Date.now() - abortedAt;
          delay.disable();
          clearTimeout(timer);
          expect(settledAfterAbort).toBeLessThan(ABORT_GRACE_MS + SLACK_MS);
          expect(delay.max / 1e6).toBeLessThan(EVENT_LOOP_BOUND_MS);
          expect(sandbox.poisoned).toBe(false);
          const after = await sandbox.execute('[typeof keep, context, history[0]]');
          // The array is linear work: an idle, fast machine may finish it before the abort (no
          // error) or within the grace (the engine sees the abort itself); the state stays.
          // Otherwise the worker was terminated, and the fresh engine has the payloads and what
          // the host set, not the blocks' state. The deep object always runs long enough.
          const finishedInTime = [undefined, 'sandbox.aborted'].includes(result.error?.code);
          if (label.includes('array') && finishedInTime) {
            expect(after.stdout).toBe("[ 'number', 'the context', 'earlier turn' ]\n");
            return;
          }
          expect(result.error?.code).toBe('sandbox.reset');
          expect(result.stderr).toContain('the REPL was reset');
          expect(after.stdout).toBe("[ 'undefined', 'the context', 'earlier turn' ]\n");
        },
      );
    },
  );

  it('terminates a block that overruns its CPU limit inside a builtin', async () => {
    await withSandbox({ isolation: 'worker', limits: LIMITS }, async (sandbox) => {
      await prepare(sandbox, BUILTINS['a 60,000-deep object'].setup);
      const started = Date.now();
      const result = await sandbox.execute(BUILTINS['a 60,000-deep object'].run);
      expect(result.error?.code).toBe('sandbox.reset');
      expect(result.error?.message).toContain(`${LIMITS.cpuSliceMs} ms CPU limit`);
      expect(Date.now() - started).toBeLessThan(LIMITS.cpuSliceMs + OVERRUN_GRACE_MS + SLACK_MS);
      expect((await sandbox.execute('6 * 7')).stdout).toBe('42\n');
    });
  });

  it('terminates a worker stuck in a builtin while the host reads a variable', async () => {
    await withSandbox({ isolation: 'worker', limits: LIMITS }, async (sandbox) => {
      await prepare(sandbox, BUILTINS['a 60,000-deep object'].setup);
      await sandbox.execute(
        'var trap = new Proxy({}, { ownKeys() { JSON.stringify(big); return [] } })',
      );
      await expect(sandbox.getVariable('trap')).rejects.toMatchObject({ code: 'sandbox.reset' });
      expect((await sandbox.execute('typeof trap')).stdout).toBe("'undefined'\n");
    });
  });
});

describe('inline isolation cannot stop a native builtin', () => {
  it.each(Object.entries(BUILTINS))(
    'survives JSON.stringify of %s: the block ends when it returns, or the sandbox is poisoned',
    async (_label, { setup, run }) => {
      await withSandbox({ isolation: 'inline', limits: LIMITS }, async (sandbox) => {
        await prepare(sandbox, setup);
        const controller = new AbortController();
        const timer = setTimeout(() => controller.abort(), ABORT_AFTER_MS);
        const result = await sandbox.execute(run, { signal: controller.signal });
        clearTimeout(timer);
        // Nothing runs on this thread until the builtin returns (not even the abort's timer):
        // the block then ends normally or at the next interrupt check, or, for a deep object,
        // the thread's own stack overflows first, which poisons the sandbox.
        const code = result.error?.code;
        expect([undefined, 'sandbox.aborted', 'sandbox.timeout', 'sandbox.poisoned']).toContain(
          code,
        );
        if (code === 'sandbox.poisoned') expect(sandbox.poisoned).toBe(true);
        else expect((await sandbox.execute('1 + 1')).stdout).toBe('2\n');
      });
    },
  );
});
