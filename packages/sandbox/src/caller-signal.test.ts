import { describe, expect, it } from 'vitest';
import { createSandbox } from './create-sandbox.js';
import {
  delayedFunction,
  ISOLATIONS,
  TEST_MEMORY_BYTES,
  withSandbox,
} from './sandbox-cases.test-helpers.js';

/** A host function that answers long after any of these tests ends, unless its call is aborted. */
const stuck = delayedFunction(600_000);

// A caller passes the same signal block after block. An inline sandbox reads it beside its own
// lifetime without linking the two (see `EngineRunOptions.alsoSignal`). These pin that in either
// isolation it stops exactly the blocks it was given to.
describe.each(ISOLATIONS)('the signal a block is given (%s)', (isolation) => {
  it('stops a later block that awaits a host call, after earlier blocks ran under it', async () => {
    await withSandbox({ isolation, functions: { stuck } }, async (sandbox) => {
      const caller = new AbortController();
      for (let index = 0; index < 3; index++) {
        const result = await sandbox.execute(`x = ${index}`, { signal: caller.signal });
        expect(result.error).toBeNull();
      }
      const running = sandbox.execute('await stuck()', { signal: caller.signal });
      setTimeout(() => caller.abort(), 50);
      expect((await running).error?.code).toBe('sandbox.aborted');
      expect((await sandbox.execute('x')).stdout).toBe('2\n');
    });
  });

  it('no longer stops blocks once a block is given another signal', async () => {
    await withSandbox({ isolation, functions: { stuck } }, async (sandbox) => {
      const earlier = new AbortController();
      const later = new AbortController();
      await sandbox.execute('x = 1', { signal: earlier.signal });
      const running = sandbox.execute('await stuck()', { signal: later.signal });
      await new Promise((resolve) => setTimeout(resolve, 50));
      earlier.abort();
      const outcome = await Promise.race([
        running.then(() => 'ended'),
        new Promise((resolve) => setTimeout(() => resolve('still running'), 200)),
      ]);
      expect(outcome).toBe('still running');
      later.abort();
      expect((await running).error?.code).toBe('sandbox.aborted');
    });
  });

  it('stops a block at once under a signal that aborted before it started', async () => {
    await withSandbox({ isolation, functions: { stuck } }, async (sandbox) => {
      const caller = new AbortController();
      await sandbox.execute('x = 1', { signal: caller.signal });
      caller.abort();
      expect((await sandbox.execute('await stuck()', { signal: caller.signal })).error?.code).toBe(
        'sandbox.aborted',
      );
      expect((await sandbox.execute('x + 1')).stdout).toBe('2\n');
    });
  });

  it('stops CPU-bound code at once under a signal that aborted before it started', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      const caller = new AbortController();
      caller.abort();
      const result = await sandbox.execute('while (true) {}', { signal: caller.signal });
      expect(result.error?.code).toBe('sandbox.aborted');
      expect((await sandbox.execute('1 + 1')).stdout).toBe('2\n');
    });
  });

  it('still stops a block given a signal when the sandbox is disposed', async () => {
    const sandbox = await createSandbox({
      isolation,
      functions: { stuck },
      limits: { memoryBytes: TEST_MEMORY_BYTES },
    });
    const caller = new AbortController();
    const running = sandbox.execute('await stuck()', { signal: caller.signal });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await sandbox.dispose();
    const result = await running.then(
      (value) => value.error?.code,
      (error: { code?: string }) => error.code,
    );
    expect(['sandbox.aborted', 'sandbox.disposed']).toContain(result);
  });
});

// Only a worker sandbox can be stopped while guest code keeps its thread busy.
describe('the signal a block is given (worker)', () => {
  it('stops CPU-bound code of a later block under the same signal', async () => {
    await withSandbox({ isolation: 'worker' }, async (sandbox) => {
      const caller = new AbortController();
      await sandbox.execute('x = 1', { signal: caller.signal });
      const running = sandbox.execute('while (true) {}', { signal: caller.signal });
      setTimeout(() => caller.abort(), 50);
      expect((await running).error?.code).toBe('sandbox.aborted');
    });
  });
});
