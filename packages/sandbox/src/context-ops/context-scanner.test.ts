import { Worker } from 'node:worker_threads';
import { RlmError } from '@rlm/protocol/core';
import { describe, expect, it, vi } from 'vitest';
import {
  ContextScanner,
  DECODE_AHEAD_MAX_CHARS,
  PRESTART_SCAN_WORKER_MIN_CHARS,
} from './context-scanner.js';
import type { ToScanWorker } from './scan-messages.js';
import { toSharedText } from './shared-text.js';

const OPTIONS = { timeoutMs: 10_000, maxChars: 100_000 };

function exited(worker: Worker): Promise<number> {
  return new Promise((resolve) => worker.once('exit', resolve));
}

/** A scanner holding `text` (shared) as `name`, its scan worker started by one helper call. */
async function usedScanner(
  text: string,
  name = 'context_0',
): Promise<{ scanner: ContextScanner; worker: Worker }> {
  const scanner = new ContextScanner(OPTIONS);
  const shared = toSharedText(text, 1);
  if (shared === undefined) throw new Error('expected shared text');
  scanner.setPayload(name, shared);
  await scanner.run('count', ['x'], new AbortController().signal);
  const worker = scanner.scanWorker;
  if (worker === undefined) throw new Error('expected a scan worker');
  return { scanner, worker };
}

describe('ContextScanner', () => {
  it('starts no scan worker until the first helper call, even for a long (shared) payload', async () => {
    const scanner = new ContextScanner(OPTIONS);
    const shared = toSharedText('needle and hay\n'.repeat(10), 1);
    if (shared === undefined) throw new Error('expected shared text');
    scanner.setPayload('context_0', shared);
    scanner.setPayload('context_1', 'needle');
    expect(scanner.scanWorker).toBeUndefined();
    const signal = new AbortController().signal;
    expect(await scanner.run('count', ['needle'], signal)).toBe(10);
    const worker = scanner.scanWorker;
    expect(worker).toBeDefined();
    expect(await scanner.run('count', ['needle', { target: 1 }], signal)).toBe(1);
    expect(scanner.scanWorker).toBe(worker);
    scanner.dispose();
  });

  it('prestart() starts the scan worker once the shared payloads total PRESTART_SCAN_WORKER_MIN_CHARS', async () => {
    const half = PRESTART_SCAN_WORKER_MIN_CHARS / 2;
    const first = toSharedText(`${'x'.repeat(half - 7)}needle\n`, 1);
    const second = toSharedText('y'.repeat(half - 1), 1);
    if (first === undefined || second === undefined) throw new Error('expected shared text');
    const scanner = new ContextScanner(OPTIONS);
    scanner.setPayload('context_0', first);
    scanner.setPayload('context_1', second);
    // One character short of the threshold: the scan worker waits for a helper call.
    scanner.prestart();
    expect(scanner.scanWorker).toBeUndefined();
    const last = toSharedText('z', 1);
    if (last === undefined) throw new Error('expected shared text');
    scanner.setPayload('context_2', last);
    scanner.prestart();
    const worker = scanner.scanWorker;
    expect(worker).toBeDefined();
    await scanner.ready();
    expect(await scanner.run('count', ['needle'], new AbortController().signal)).toBe(1);
    expect(scanner.scanWorker).toBe(worker);
    scanner.dispose();
  });

  it('gives a running scan worker the payloads set later, and the same shared one only once', async () => {
    const { scanner, worker } = await usedScanner('needle\n'.repeat(50));
    const shared = toSharedText('needle\n'.repeat(5), 1);
    if (shared === undefined) throw new Error('expected shared text');
    scanner.setPayload('context_2', shared);
    scanner.setPayload('context_2', shared);
    const signal = new AbortController().signal;
    expect(await scanner.run('count', ['needle', { target: 2 }], signal)).toBe(5);
    expect(await scanner.run('count', ['needle'], signal)).toBe(50);
    expect(scanner.scanWorker).toBe(worker);
    scanner.dispose();
  });

  it('terminates its scan worker on dispose and refuses later calls', async () => {
    const { scanner, worker } = await usedScanner('x'.repeat(100), 'context');
    const exit = exited(worker);
    scanner.dispose();
    expect(typeof (await exit)).toBe('number');
    expect(scanner.scanWorker).toBeUndefined();
    const refused = await scanner
      .run('count', ['x'], new AbortController().signal)
      .catch((error: unknown) => error);
    expect(RlmError.is(refused, 'sandbox.disposed')).toBe(true);
  });

  it('replaces a scan worker that died', async () => {
    const { scanner, worker } = await usedScanner('needle\n'.repeat(20));
    const exit = exited(worker);
    await worker.terminate();
    await exit;
    expect(scanner.scanWorker).toBeUndefined();
    expect(await scanner.run('count', ['needle'], new AbortController().signal)).toBe(20);
    expect(scanner.scanWorker).not.toBe(worker);
    scanner.dispose();
  });

  it('decodes a prestarted context ahead only up to DECODE_AHEAD_MAX_CHARS (beyond it, on the first scan)', async () => {
    const sent = vi.spyOn(Worker.prototype, 'postMessage');
    try {
      // Counting 32 Mi matches on a loaded 2-core box can outlast the 10 s the other cases allow;
      // the limit is not what this case is about.
      const scanner = new ContextScanner({ ...OPTIONS, timeoutMs: 300_000 });
      const within = toSharedText('a'.repeat(PRESTART_SCAN_WORKER_MIN_CHARS), 1);
      const beyond = toSharedText(
        'b'.repeat(DECODE_AHEAD_MAX_CHARS - PRESTART_SCAN_WORKER_MIN_CHARS + 1),
        1,
      );
      if (within === undefined || beyond === undefined) throw new Error('expected shared text');
      scanner.setPayload('context_0', within);
      scanner.setPayload('context_1', beyond);
      scanner.prestart();
      await scanner.ready();
      const payloads = sent.mock.calls
        .map(([message]) => message as ToScanWorker)
        // The warm-up's own tiny payload aside.
        .filter(
          (message): message is Extract<ToScanWorker, { type: 'payload' }> =>
            message.type === 'payload' && message.name.startsWith('context_'),
        );
      expect(payloads.map((message) => [message.name, message.decodeNow])).toEqual([
        ['context_0', true],
        ['context_1', false],
      ]);
      expect(
        await scanner.run('count', ['b', { target: 'context_1' }], new AbortController().signal),
      ).toBe(DECODE_AHEAD_MAX_CHARS - PRESTART_SCAN_WORKER_MIN_CHARS + 1);
      scanner.dispose();
    } finally {
      sent.mockRestore();
    }
  });
});
