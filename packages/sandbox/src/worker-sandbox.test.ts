import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import { describe, expect, it, vi } from 'vitest';
import { SHARED_TEXT_MIN_CHARS } from './context-ops/shared-text.js';
import { createSandbox } from './create-sandbox.js';
import type { Sandbox } from './sandbox.js';
import { delayedFunction, TEST_MEMORY_BYTES } from './sandbox-cases.test-helpers.js';
import { workerPool } from './worker-pool.js';
import { WorkerSandbox } from './worker-sandbox.js';

const run = promisify(execFile);

async function workerSandbox(
  options: Parameters<typeof createSandbox>[0] = {},
): Promise<WorkerSandbox> {
  const sandbox = await createSandbox({
    ...options,
    isolation: 'worker',
    limits: { memoryBytes: TEST_MEMORY_BYTES },
  });
  expect(sandbox).toBeInstanceOf(WorkerSandbox);
  return sandbox as WorkerSandbox;
}

async function evaluate(sandbox: Sandbox, expression: string): Promise<unknown> {
  const result = await sandbox.execute(`var __probe = ${expression}`);
  expect(result.error).toBeNull();
  return sandbox.getVariable('__probe');
}

/** Tampers with everything a guest can reach: globals, prototypes, built-ins. */
const TAMPER = `
var mark = 'from A';
globalThis.leaked = 'from A';
Object.prototype.polluted = 'from A';
Array.prototype.push = function () { return 'hijacked' };
JSON.stringify = function () { return 'hijacked' };
Math.random = function () { return 42 };
function helper() { return 'from A' }
`;

describe('worker reuse', () => {
  it('hands a disposed sandbox worker to the next sandbox with none of its state', async () => {
    const secret = delayedFunction(0, () => 'secret');
    const first = await workerSandbox({ context: 'context of A', functions: { secret } });
    expect((await first.execute(TAMPER)).error).toBeNull();
    expect(await evaluate(first, '[].push(1)')).toBe('hijacked');
    const thread = first.threadId;
    await first.dispose();

    const second = await workerSandbox({ context: 'context of B' });
    try {
      // The same thread serves it: reuse happened, so the checks below are about reuse.
      expect(second.threadId).toBe(thread);
      expect(await evaluate(second, 'typeof mark')).toBe('undefined');
      expect(await evaluate(second, 'typeof leaked')).toBe('undefined');
      expect(await evaluate(second, 'typeof helper')).toBe('undefined');
      expect(await evaluate(second, 'typeof secret')).toBe('undefined');
      expect(await evaluate(second, '({}).polluted === undefined')).toBe(true);
      expect(await evaluate(second, '[].push(1)')).toBe(1);
      expect(await evaluate(second, 'JSON.stringify({ a: 1 })')).toBe('{"a":1}');
      expect(await evaluate(second, 'Math.random() !== 42')).toBe(true);
      expect(await evaluate(second, 'context')).toBe('context of B');
      expect((await second.listVariables()).map((variable) => variable.name)).toEqual(['__probe']);
    } finally {
      await second.dispose();
    }
  });

  it('hands on a clean worker when disposed while a block spins or awaits a host call', async () => {
    const stuck = delayedFunction(60_000);
    const spinning = await workerSandbox();
    const running = spinning.execute('var spun = 1; while (true) {}');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const spinThread = spinning.threadId;
    await spinning.dispose();
    await expect(running).resolves.toMatchObject({ error: { code: 'sandbox.aborted' } });

    const waiting = await workerSandbox({ functions: { stuck } });
    expect(waiting.threadId).toBe(spinThread);
    expect(await evaluate(waiting, 'typeof spun')).toBe('undefined');
    const awaiting = waiting.execute('var got = await stuck()');
    // Disposed only once the host call is under way (a fixed pause lost that race on a busy machine).
    await vi.waitFor(() => expect(stuck.calls).toBe(1), { timeout: 30_000, interval: 10 });
    await waiting.dispose();
    await awaiting.catch(() => undefined);
    expect(stuck.aborted).toBe(1);

    const next = await workerSandbox();
    try {
      expect(next.threadId).toBe(spinThread);
      expect(await evaluate(next, 'typeof got')).toBe('undefined');
      expect(await evaluate(next, '6 * 7')).toBe(42);
    } finally {
      await next.dispose();
    }
  });

  it('boots on another worker when the pooled one dies before it is ready', async () => {
    // Stands in for a pooled worker killed between two sandboxes: it exits on the boot message.
    const doomed = new Worker(
      "require('node:worker_threads').parentPort.once('message', () => process.exit(3));",
      { eval: true },
    );
    const exited = new Promise<number>((resolve) => doomed.once('exit', resolve));
    workerPool.give(doomed);
    const sandbox = await workerSandbox({ context: 'still works' });
    try {
      expect(await exited).toBe(3);
      expect(await evaluate(sandbox, 'context')).toBe('still works');
    } finally {
      await sandbox.dispose();
    }
  });

  it('gives each of several concurrent sandboxes its own worker', async () => {
    const sandboxes = await Promise.all([0, 1, 2].map(() => workerSandbox()));
    try {
      expect(new Set(sandboxes.map((sandbox) => sandbox.threadId)).size).toBe(3);
      await Promise.all(sandboxes.map((sandbox, index) => sandbox.execute(`var n = ${index}`)));
      for (const [index, sandbox] of sandboxes.entries()) {
        expect(await sandbox.getVariable('n')).toBe(index);
      }
    } finally {
      await Promise.all(sandboxes.map((sandbox) => sandbox.dispose()));
    }
  });

  it('never keeps the process alive: a program that used worker sandboxes exits by itself', async () => {
    const entry = new URL('../dist/index.js', import.meta.url).href;
    const program = `
      const { createSandbox } = await import(${JSON.stringify(entry)});
      const sandboxes = await Promise.all([1, 2, 3].map(() => createSandbox({ isolation: 'worker' })));
      const results = await Promise.all(sandboxes.map((sandbox) => sandbox.execute('1 + 1')));
      await Promise.all(sandboxes.map((sandbox) => sandbox.dispose()));
      const again = await createSandbox({ isolation: 'worker' });
      await again.dispose();
      await new Promise((resolve) => setImmediate(resolve));
      // What would keep the process alive: idle workers' ports or expiry timers, if ref'd.
      const holding = process.getActiveResourcesInfo().filter((kind) => kind !== 'TTYWrap');
      console.log(JSON.stringify({ errors: results.map((result) => result.error), holding }));
    `;
    const dir = await mkdtemp(join(tmpdir(), 'rlm-pool-'));
    try {
      const file = join(dir, 'program.mjs');
      await writeFile(file, program);
      // An idle worker left ref'd would keep this child running until it expires from the pool
      // (or the generous timeout kills it), and shows among the resources still holding it.
      const { stdout } = await run(process.execPath, [file], { timeout: 60_000 });
      expect(JSON.parse(stdout)).toEqual({ errors: [null, null, null], holding: [] });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 90_000);
});

describe('the spare worker', () => {
  it('is not started beside the first sandbox of a process, only from the second on', async () => {
    const entry = new URL('../dist/index.js', import.meta.url).href;
    const pool = new URL('../dist/worker-pool.js', import.meta.url).href;
    const program = `
      const { createSandbox } = await import(${JSON.stringify(entry)});
      const { workerPool } = await import(${JSON.stringify(pool)});
      const first = await createSandbox({ isolation: 'worker' });
      const alone = workerPool.idleCount;
      const second = await createSandbox({ isolation: 'worker' });
      const beside = workerPool.idleCount;
      const outputs = [(await first.execute('1 + 1')).error, (await second.execute('2')).error];
      await Promise.all([first.dispose(), second.dispose()]);
      await workerPool.close();
      console.log(JSON.stringify({ alone, beside, outputs }));
    `;
    const dir = await mkdtemp(join(tmpdir(), 'rlm-spare-'));
    try {
      const file = join(dir, 'program.mjs');
      await writeFile(file, program);
      const { stdout } = await run(process.execPath, [file], { timeout: 60_000 });
      expect(JSON.parse(stdout)).toEqual({ alone: 0, beside: 1, outputs: [null, null] });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 90_000);
});

describe('memory of long payloads', () => {
  it('starts no spare worker beside a sandbox that holds a long payload', async () => {
    // The process's first sandbox starts no spare (see boot-worker.ts): that one is behind us.
    await (await workerSandbox()).dispose();
    await workerPool.close();
    const short = await workerSandbox({ context: 'short' });
    try {
      // The contrast: beside a sandbox with a short payload, a spare waits for the next one.
      expect(workerPool.idleCount).toBe(1);
    } finally {
      await short.dispose();
    }
    await workerPool.close();
    const long = await workerSandbox({ context: 'x'.repeat(SHARED_TEXT_MIN_CHARS) });
    try {
      expect(workerPool.idleCount).toBe(0);
      expect(await evaluate(long, 'context.length')).toBe(SHARED_TEXT_MIN_CHARS);
      expect(await evaluate(long, 'await count("x")')).toBe(SHARED_TEXT_MIN_CHARS);
    } finally {
      await long.dispose();
    }
  });
});

describe('aborting one request', () => {
  it('stops only that block: the next block and read on the same engine run as usual', async () => {
    const ask = delayedFunction(1, () => 'answered');
    const stuck = delayedFunction(60_000);
    const sandbox = await workerSandbox({ functions: { ask, stuck } });
    try {
      const caller = new AbortController();
      const running = sandbox.execute('var first = await stuck()', { signal: caller.signal });
      await new Promise((resolve) => setTimeout(resolve, 100));
      caller.abort();
      expect((await running).error?.code).toBe('sandbox.aborted');
      expect(stuck.aborted).toBe(1);

      const again = await sandbox.execute('var second = await ask(); print(second)', {
        signal: caller.signal.aborted ? new AbortController().signal : caller.signal,
      });
      expect(again.error).toBeNull();
      expect(again.stdout.trim()).toBe('answered');
      expect(await sandbox.getVariable('second')).toBe('answered');
      expect(await evaluate(sandbox, 'typeof first')).toBe('undefined');
    } finally {
      await sandbox.dispose();
    }
  });

  it('by dispose() stops a read in progress and hands the worker on', async () => {
    const sandbox = await workerSandbox();
    // Reading it runs guest code that never returns: only an abort stops it before cpuSliceMs.
    const defined = await sandbox.execute(
      'var slow = new Proxy({}, { ownKeys() { while (true) {} }, get() { while (true) {} } })',
    );
    expect(defined.error).toBeNull();
    const thread = sandbox.threadId;
    const reading = sandbox.getVariable('slow').then(
      () => undefined,
      (error: unknown) => error,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    await sandbox.dispose();
    expect(await reading).toBeInstanceOf(Error);
    // Stopped in time by the abort (not terminated after the grace): the worker is handed on.
    const next = await workerSandbox();
    try {
      expect(next.threadId).toBe(thread);
      expect(await evaluate(next, 'typeof slow')).toBe('undefined');
    } finally {
      await next.dispose();
    }
  });
});
