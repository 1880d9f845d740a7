import { afterEach, describe, expect, it, vi } from 'vitest';
import { bootWorker } from './boot-worker.js';
import type { WorkerBoot } from './worker-messages.js';
import { workerPool } from './worker-pool.js';

afterEach(async () => {
  vi.restoreAllMocks();
  await workerPool.close();
});

describe('bootWorker', () => {
  it('takes (starts) its worker before the boot message is ready, and gives it back if it never is', async () => {
    await workerPool.close();
    const take = vi.spyOn(workerPool, 'take');
    let fail: (error: Error) => void = () => {};
    const boot = new Promise<WorkerBoot>((_, reject) => {
      fail = reject;
    });
    const booting = bootWorker(boot);
    // The worker thread is starting while the boot (in a fresh process, the engine's compile) is
    // still being made.
    expect(take).toHaveBeenCalledTimes(1);
    expect(workerPool.idleCount).toBe(0);
    fail(new Error('the engine did not compile'));
    await expect(booting).rejects.toThrow('the engine did not compile');
    // It never got a boot: it waits for one in the pool, like any idle worker.
    expect(workerPool.idleCount).toBe(1);
  });
});
