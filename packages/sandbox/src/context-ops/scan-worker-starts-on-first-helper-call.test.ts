import type { WorkerOptions } from 'node:worker_threads';
import { describe, expect, it, vi } from 'vitest';
import { withSandbox } from '../sandbox-cases.test-helpers.js';

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
  it('starts on the first helper call, not with the sandbox or its blocks', async () => {
    // 1 MiB: from this length on a context is shared text (SHARED_TEXT_MIN_CHARS).
    const context = `${'hay '.repeat(262_143)}needle\n`.slice(-1_048_576);
    expect(context.length).toBe(1_048_576);
    await withSandbox({ context, isolation: 'inline' }, async (sandbox) => {
      expect(scanWorkers()).toBe(0);
      const plain = await sandbox.execute('context.length');
      expect(plain.stdout).toBe('1048576\n');
      expect(scanWorkers()).toBe(0);
      const counted = await sandbox.execute('await count("needle")');
      expect(counted.stdout).toBe('1\n');
      expect(scanWorkers()).toBe(1);
    });
  });
});
