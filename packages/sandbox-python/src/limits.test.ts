import { RlmError } from '@rlm/protocol';
import { describe, expect, it } from 'vitest';
import { createPythonSandbox } from './create-python-sandbox.js';
import {
  delayedFunction,
  run,
  TEST_MEMORY_BYTES,
  withSandbox,
} from './sandbox-cases.test-helpers.js';

const FAST_CPU = { cpuSliceMs: 500 };

describe('Python sandbox limits', () => {
  it.each([
    ['a plain loop', 'while True:\n    pass'],
    ['a catastrophic regex', 'import re\nre.match(r"^(a+)+$", "a" * 40 + "b")'],
    [
      'a loop that catches the first interrupt',
      'try:\n    while True: pass\nexcept KeyboardInterrupt:\n    while True: pass',
    ],
  ])('stops %s at the CPU deadline and keeps the variables', async (_label, code) => {
    await withSandbox({ limits: FAST_CPU }, async (sandbox) => {
      await run(sandbox, 'before = 1');
      const result = await sandbox.execute(code);
      expect(result.error).toMatchObject({ code: 'sandbox.timeout' });
      expect(result.stderr).toContain('RlmError [sandbox.timeout]');
      expect(await run(sandbox, 'before + 1')).toBe('2\n');
      expect(sandbox.resets).toBe(0);
    });
  });

  it('replaces an interpreter that swallows every interrupt, says so, and restores the context', async () => {
    await withSandbox({ context: 'the context', limits: FAST_CPU }, async (sandbox) => {
      await run(sandbox, 'lost = 1');
      const result = await sandbox.execute(
        'while True:\n    try:\n        while True: pass\n    except BaseException:\n        pass',
      );
      expect(result.error).toMatchObject({ code: 'sandbox.timeout' });
      expect(result.stderr).toContain('replaced by a fresh one: all variables were lost');
      expect(sandbox.resets).toBe(1);
      expect(sandbox.poisoned).toBe(false);
      expect(await run(sandbox, 'print(context, "lost" in globals())')).toBe('the context False\n');
    });
  });

  it('stops a block past its wall-clock deadline while it waits for the host, aborting the call', async () => {
    const slow = delayedFunction(5_000);
    await withSandbox({ functions: { slow }, limits: { blockTimeoutMs: 500 } }, async (sandbox) => {
      const result = await sandbox.execute('got = "none"\ngot = slow()');
      expect(result.error).toMatchObject({ code: 'sandbox.timeout' });
      expect(result.error?.message).toContain('wall-clock');
      expect(slow.aborted).toBe(1);
      expect(await run(sandbox, 'got')).toBe("'none'\n");
    });
  });

  it('does not count time spent waiting for the host as CPU time', async () => {
    // 4 s of host waiting against a 3 s slice: counted, the waits alone would stop the block;
    // the slice leaves the block's own Python work seconds of room on a loaded machine (the
    // "CPU" clock is wall time outside host calls, so load stretches it).
    const slow = delayedFunction(2_000);
    await withSandbox({ functions: { slow }, limits: { cpuSliceMs: 3_000 } }, async (sandbox) => {
      const result = await sandbox.execute('slow()\nslow()\n"done"');
      expect(result.error).toBeNull();
      expect(result.stdout).toBe("'done'\n");
    });
  });

  it('aborts a spinning block within about a second and stays usable', async () => {
    await withSandbox({}, async (sandbox) => {
      const controller = new AbortController();
      const running = sandbox.execute('while True: pass', { signal: controller.signal });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const abortedAt = Date.now();
      controller.abort();
      const result = await running;
      expect(result.error).toMatchObject({ code: 'sandbox.aborted' });
      // About 1 s asked for; the bound is generous because the machine is shared.
      expect(Date.now() - abortedAt).toBeLessThan(5_000);
      expect(await run(sandbox, '3')).toBe('3\n');
    });
  });

  it('reports memory exhaustion, deletes what the block created and keeps earlier variables', async () => {
    await withSandbox({}, async (sandbox) => {
      await run(sandbox, 'earlier = "still here"');
      // Set by the host between blocks: the block starts with it, so it is not the block's to drop.
      await sandbox.setVariable('from_host', 'kept too');
      const result = await sandbox.execute(
        'hog = []\nwhile True:\n    hog.append(bytearray(1 << 20))',
      );
      expect(result.error).toMatchObject({ name: 'MemoryError', code: 'sandbox.out_of_memory' });
      expect(result.stderr).toContain('variables created by this block were deleted: hog\n');
      expect(await run(sandbox, 'print(earlier, from_host, "hog" in globals())')).toBe(
        'still here kept too False\n',
      );
      expect(await run(sandbox, 'len(bytearray(8 << 20))')).toBe('8388608\n');
    });
  });

  it('gives a clean RecursionError for deep recursion', async () => {
    await withSandbox({}, async (sandbox) => {
      const result = await sandbox.execute('def down(n):\n    return down(n + 1) + 1\ndown(0)');
      expect(result.error).toMatchObject({
        name: 'RecursionError',
        code: 'sandbox.stack_overflow',
      });
      expect(await run(sandbox, '1 + 1')).toBe('2\n');
    });
  });

  it('caps stdout and stderr per block with a marker', async () => {
    await withSandbox({ limits: { maxOutputChars: 1_000 } }, async (sandbox) => {
      const flood = await sandbox.execute('print("x" * 10_000_000)');
      expect(flood.stdout.length).toBeLessThan(1_100);
      expect(flood.stdout).toContain('… + [9999001 chars...]');
      const lines = await sandbox.execute(
        'import sys\nfor i in range(100_000):\n    print(i, file=sys.stderr)',
      );
      expect(lines.stderr.length).toBeLessThan(1_100);
      expect(await run(sandbox, '"alive"')).toBe("'alive'\n");
    });
  });

  it('refuses a final answer over maxAnswerChars with an error the model reads', async () => {
    await withSandbox({ limits: { maxAnswerChars: 100 } }, async (sandbox) => {
      const result = await sandbox.execute('FINAL("x" * 101)');
      expect(result.finalAnswer).toBeNull();
      expect(result.error?.name).toBe('ValueError');
      expect(result.stderr).toContain('answers are limited to 100 characters');
      expect((await sandbox.execute('FINAL("x" * 100)')).finalAnswer).toBe('x'.repeat(100));
    });
  });

  it('caps the error name, message and traceback by maxOutputChars', async () => {
    await withSandbox({ limits: { maxOutputChars: 1_000 } }, async (sandbox) => {
      const result = await sandbox.execute(
        'Big = type("E" * 100_000, (Exception,), {})\nraise Big("m" * 10_000_000)',
      );
      expect(result.error?.name.length).toBeLessThanOrEqual(200);
      expect(result.error?.message.length).toBeLessThanOrEqual(1_000);
      expect(result.stderr.length).toBeLessThan(3_000);
    });
  });

  it("stops an exception whose str() never returns, within the block's own limit", async () => {
    await withSandbox({ limits: FAST_CPU }, async (sandbox) => {
      const result = await sandbox.execute(
        'class Stuck(Exception):\n    def __str__(self):\n        while True: pass\nraise Stuck()',
      );
      expect(result.error).toMatchObject({ code: 'sandbox.timeout' });
      expect(sandbox.resets).toBe(0);
      expect(await run(sandbox, '1 + 1')).toBe('2\n');
    });
  });

  it('rejects with sandbox.disposed after dispose, which is idempotent', async () => {
    const sandbox = await createPythonSandbox({ limits: { memoryBytes: TEST_MEMORY_BYTES } });
    await sandbox.dispose();
    await sandbox.dispose();
    expect(sandbox.disposed).toBe(true);
    await expect(sandbox.execute('1')).rejects.toSatisfy((error) =>
      RlmError.is(error, 'sandbox.disposed'),
    );
  });

  it('disposes promptly while a block runs, and when the creation signal aborts', async () => {
    const controller = new AbortController();
    const sandbox = await createPythonSandbox({
      signal: controller.signal,
      limits: { memoryBytes: TEST_MEMORY_BYTES },
    });
    const running = sandbox.execute('while True: pass');
    await new Promise((resolve) => setTimeout(resolve, 300));
    controller.abort();
    const outcome = await running.then(
      (result) => result.error?.code,
      (error: unknown) => (RlmError.is(error) ? error.code : 'unexpected'),
    );
    expect(['sandbox.aborted', 'sandbox.disposed']).toContain(outcome);
    expect(sandbox.disposed).toBe(true);
  });
});
