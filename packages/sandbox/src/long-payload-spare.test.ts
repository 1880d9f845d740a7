import { afterAll, describe, expect, it, vi } from 'vitest';
import { SHARED_TEXT_MIN_CHARS } from './context-ops/shared-text.js';
import { createSandbox } from './create-sandbox.js';
import { TEST_MEMORY_BYTES } from './sandbox-cases.test-helpers.js';
import { workerPool } from './worker-pool.js';
import { WorkerSandbox } from './worker-sandbox.js';

/** Long enough to travel as a long payload (its worker is terminated, never pooled). */
const LONG = 'lorem ipsum dolor\n'.repeat(Math.ceil(SHARED_TEXT_MIN_CHARS / 18) + 1);

async function longPayloadSandbox(): Promise<WorkerSandbox> {
  const sandbox = await createSandbox({
    isolation: 'worker',
    context: LONG,
    limits: { memoryBytes: TEST_MEMORY_BYTES },
  });
  if (!(sandbox instanceof WorkerSandbox)) throw new Error('expected a worker sandbox');
  return sandbox;
}

/** The thread ids of the idle workers (taken and given straight back). */
function idleThreads(): number[] {
  const idle = [];
  while (workerPool.idleCount > 0) idle.push(workerPool.take());
  for (const worker of idle) workerPool.give(worker);
  return idle.map((worker) => worker.threadId);
}

afterAll(async () => {
  await workerPool.close();
});

// One process's story, in order: the module's boot count is what decides.
describe('a spare worker after a long payload', () => {
  it('is not started when the process’s first worker sandbox, holding one, is disposed', async () => {
    await workerPool.close();
    const first = await longPayloadSandbox();
    await first.dispose();
    // Long enough for a spare to have been asked for (it is, a microtask after the terminate).
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(workerPool.idleCount).toBe(0);
  });

  it('is started when a later one is disposed, and the next sandbox boots on it', async () => {
    const second = await longPayloadSandbox();
    const secondThread = second.threadId;
    await second.dispose();
    await vi.waitFor(() => expect(workerPool.idleCount).toBe(1));
    const [spare] = idleThreads();
    expect(spare).not.toBe(secondThread);
    const third = await longPayloadSandbox();
    try {
      expect(third.threadId).toBe(spare);
      const result = await third.execute('context.length');
      expect(result.stdout.trim()).toBe(String(LONG.length));
    } finally {
      await third.dispose();
    }
  });
});
