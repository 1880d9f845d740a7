import type { WorkerOptions } from 'node:worker_threads';
import { describe, expect, it, vi } from 'vitest';
import { withSandbox } from '../sandbox-cases.test-helpers.js';
import { PRESTART_SCAN_WORKER_MIN_CHARS } from './context-scanner.js';

/** Every worker thread this process starts, by script (inline sandboxes start theirs here). */
const started = vi.hoisted(() => [] as string[]);

vi.mock('node:worker_threads', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:worker_threads')>();
  class RecordedWorker extends real.Worker {
    constructor(script: string | URL, options?: WorkerOptions) {
      super(script, options);
      started.push(String(script));
    }
  }
  return { ...real, Worker: RecordedWorker };
});

const scanWorkers = (): number =>
  started.filter((script) => script.endsWith('scan-worker.js')).length;

describe('the scan worker of a sandbox with a long context', () => {
  it('starts on the first helper call, not with the sandbox or its blocks, below the threshold', async () => {
    // 1 MiB: from this length on a context is shared text (SHARED_TEXT_MIN_CHARS).
    const context = `${'hay '.repeat(262_143)}needle\n`.slice(-1_048_576);
    expect(context.length).toBe(1_048_576);
    const before = scanWorkers();
    await withSandbox({ context, isolation: 'inline' }, async (sandbox) => {
      expect(scanWorkers()).toBe(before);
      const plain = await sandbox.execute('context.length');
      expect(plain.stdout).toBe('1048576\n');
      expect(scanWorkers()).toBe(before);
      const counted = await sandbox.execute('await count("needle")');
      expect(counted.stdout).toBe('1\n');
      expect(scanWorkers()).toBe(before + 1);
    });
  });

  it('starts with the sandbox, before any helper call, from PRESTART_SCAN_WORKER_MIN_CHARS on', async () => {
    const context = `${'x'.repeat(PRESTART_SCAN_WORKER_MIN_CHARS - 7)}needle\n`;
    const before = scanWorkers();
    await withSandbox({ context, isolation: 'inline' }, async (sandbox) => {
      expect(scanWorkers()).toBe(before + 1);
      const counted = await sandbox.execute('await count("needle")');
      expect(counted.stdout).toBe('1\n');
      // The first helper call used the thread the sandbox started.
      expect(scanWorkers()).toBe(before + 1);
    });
  });
});
