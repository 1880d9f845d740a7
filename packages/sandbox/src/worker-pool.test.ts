import { once } from 'node:events';
import type { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { WorkerPool } from './worker-pool.js';

/** Terminates every worker a test started, whatever the pool did with it. */
async function terminateAll(workers: Worker[]): Promise<void> {
  await Promise.all(workers.map((worker) => worker.terminate()));
}

describe('WorkerPool', () => {
  it('starts a fresh worker when none is idle and a spare only while none is idle', async () => {
    const pool = new WorkerPool();
    const fresh = pool.take();
    expect(pool.idleCount).toBe(0);
    pool.warm();
    pool.warm();
    expect(pool.idleCount).toBe(1);
    const spare = pool.take();
    expect(pool.idleCount).toBe(0);
    const another = pool.take();
    expect(new Set([fresh, spare, another].map((worker) => worker.threadId)).size).toBe(3);
    await terminateAll([fresh, spare, another]);
  });

  it('hands out the most recently given worker first and keeps at most maxIdle', async () => {
    const pool = new WorkerPool({ maxIdle: 2 });
    const workers = [pool.take(), pool.take(), pool.take()];
    const [first, second, third] = workers as [Worker, Worker, Worker];
    pool.give(first);
    pool.give(second);
    const exited = once(third, 'exit');
    pool.give(third);
    // Past the cap the worker is terminated rather than kept.
    await exited;
    expect(pool.idleCount).toBe(2);
    expect(pool.take()).toBe(second);
    expect(pool.take()).toBe(first);
    expect(pool.idleCount).toBe(0);
    await terminateAll(workers);
  });

  it('forgets an idle worker that exits, so it is never handed out', async () => {
    const pool = new WorkerPool();
    const worker = pool.take();
    pool.give(worker);
    expect(pool.idleCount).toBe(1);
    await worker.terminate();
    expect(pool.idleCount).toBe(0);
    const next = pool.take();
    expect(next).not.toBe(worker);
    await next.terminate();
  });

  it('terminates a worker left idle past its time to live', async () => {
    const pool = new WorkerPool({ ttlMs: 10 });
    const worker = pool.take();
    const exited = once(worker, 'exit');
    pool.give(worker);
    await exited;
    expect(pool.idleCount).toBe(0);
  });

  it('close() terminates every idle worker', async () => {
    const pool = new WorkerPool();
    const workers = [pool.take(), pool.take()];
    for (const worker of workers) pool.give(worker);
    const exits = workers.map((worker) => once(worker, 'exit'));
    await pool.close();
    await Promise.all(exits);
    expect(pool.idleCount).toBe(0);
  });
});
