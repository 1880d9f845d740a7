import type { Worker } from 'node:worker_threads';
import { RlmError } from '@rlm/protocol/core';
import { describe, expect, it } from 'vitest';
import { ContextScanner } from './context-scanner.js';
import { toSharedText } from './shared-text.js';

const OPTIONS = { timeoutMs: 10_000, maxChars: 100_000 };

function exited(worker: Worker): Promise<number> {
  return new Promise((resolve) => worker.once('exit', resolve));
}

/** A scanner holding `text` (shared) as `name`, its scan worker started as a sandbox starts it. */
function warmScanner(
  text: string,
  name = 'context_0',
): { scanner: ContextScanner; worker: Worker } {
  const scanner = new ContextScanner(OPTIONS);
  const shared = toSharedText(text, 1);
  if (shared === undefined) throw new Error('expected shared text');
  scanner.setPayload(name, shared);
  scanner.warm();
  const worker = scanner.scanWorker;
  if (worker === undefined) throw new Error('expected a warm scan worker');
  return { scanner, worker };
}

describe('ContextScanner', () => {
  it('starts its scan worker with the sandbox when a payload is long (shared)', async () => {
    const scanner = new ContextScanner(OPTIONS);
    const shared = toSharedText('needle and hay\n'.repeat(10), 1);
    if (shared === undefined) throw new Error('expected shared text');
    scanner.setPayload('context_0', shared);
    expect(scanner.scanWorker).toBeUndefined();
    scanner.warm();
    const worker = scanner.scanWorker;
    expect(worker).toBeDefined();
    const signal = new AbortController().signal;
    expect(await scanner.run('count', ['needle'], signal)).toBe(10);
    // The first call found the worker the sandbox started.
    expect(scanner.scanWorker).toBe(worker);
    scanner.dispose();
  });

  it('leaves the scan worker to the first helper call when every payload is short', async () => {
    const scanner = new ContextScanner(OPTIONS);
    scanner.setPayload('context_0', 'needle');
    scanner.warm();
    expect(scanner.scanWorker).toBeUndefined();
    expect(await scanner.run('count', ['needle'], new AbortController().signal)).toBe(1);
    expect(scanner.scanWorker).toBeDefined();
    scanner.dispose();
  });

  it('terminates its scan worker on dispose and refuses later calls', async () => {
    const { scanner, worker } = warmScanner('x'.repeat(100), 'context');
    const exit = exited(worker);
    scanner.dispose();
    expect(typeof (await exit)).toBe('number');
    expect(scanner.scanWorker).toBeUndefined();
    const refused = await scanner
      .run('count', ['x'], new AbortController().signal)
      .catch((error: unknown) => error);
    expect(RlmError.is(refused, 'sandbox.disposed')).toBe(true);
  });

  it('ready() settles at once with no scan worker, and once a warm one has its payloads', async () => {
    const scanner = new ContextScanner(OPTIONS);
    scanner.setPayload('context_0', 'short');
    await scanner.ready();
    expect(scanner.scanWorker).toBeUndefined();
    const shared = toSharedText('needle\n'.repeat(50), 1);
    if (shared === undefined) throw new Error('expected shared text');
    scanner.setPayload('context_1', shared);
    scanner.warm();
    const worker = scanner.scanWorker;
    await scanner.ready();
    // Giving the same payload again (as the engine does after its early start) changes nothing.
    scanner.setPayload('context_1', shared);
    const signal = new AbortController().signal;
    expect(await scanner.run('count', ['needle', { target: 1 }], signal)).toBe(50);
    expect(await scanner.run('count', ['short'], signal)).toBe(1);
    expect(scanner.scanWorker).toBe(worker);
    scanner.dispose();
  });

  it('ready() warms the scan path on a payload no helper call can name', async () => {
    // The warm-up text holds the word this payload has none of.
    const { scanner } = warmScanner('hay\n'.repeat(30));
    await scanner.ready();
    const signal = new AbortController().signal;
    expect(await scanner.run('count', ['needle'], signal)).toBe(0);
    expect(await scanner.run('count', ['hay'], signal)).toBe(30);
    const refused = await scanner
      .run('count', ['needle', { target: 'warm-up' }], signal)
      .catch((error: unknown) => error);
    expect(RlmError.is(refused)).toBe(true);
    scanner.dispose();
  });

  it('ready() settles when the sandbox is disposed during the warm-up', async () => {
    const { scanner, worker } = warmScanner('needle\n'.repeat(20));
    const exit = exited(worker);
    const settling = scanner.ready();
    scanner.dispose();
    await exit;
    await settling;
  });

  it('replaces a scan worker that died, and ready() does not wait for a dead one', async () => {
    const { scanner, worker } = warmScanner('needle\n'.repeat(20));
    const exit = exited(worker);
    await worker.terminate();
    await exit;
    expect(scanner.scanWorker).toBeUndefined();
    await scanner.ready();
    expect(await scanner.run('count', ['needle'], new AbortController().signal)).toBe(20);
    expect(scanner.scanWorker).not.toBe(worker);
    scanner.dispose();
  });
});
