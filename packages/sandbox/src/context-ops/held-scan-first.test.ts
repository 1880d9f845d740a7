import type { WorkerOptions } from 'node:worker_threads';
import { describe, expect, it, vi } from 'vitest';
import { withSandbox } from '../sandbox-cases.test-helpers.js';
import { PRESTART_SCAN_WORKER_MIN_CHARS } from './context-scanner.js';

/** Every worker thread this process starts, by script (inline sandboxes start theirs here). */
const started = vi.hoisted(() => [] as string[]);

/**
 * Whether the host or a scan worker answers must not hang on how loaded the machine is: here the
 * held-scan budget is generous (its cut-off has tests of its own, in held-scan-budget.test.ts).
 */
vi.mock('node:vm', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:vm')>();
  class GenerousScript extends real.Script {
    override runInContext(
      context: import('node:vm').Context,
      options?: import('node:vm').RunningScriptOptions,
    ) {
      return super.runInContext(context, { ...options, timeout: 60_000 });
    }
  }
  return { ...real, default: { ...real, Script: GenerousScript }, Script: GenerousScript };
});

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

describe('helper calls on a long context', () => {
  it('are answered from the text the host holds: no scan worker starts, 1 MiB or past the prestart size', async () => {
    // 1 MiB: from this length on a context is shared text (SHARED_TEXT_MIN_CHARS).
    for (const length of [1_048_576, PRESTART_SCAN_WORKER_MIN_CHARS]) {
      const context = `${'hay '.repeat(length / 4)}`.slice(0, length - 7).concat('needle\n');
      expect(context.length).toBe(length);
      const before = scanWorkers();
      await withSandbox({ context, isolation: 'inline' }, async (sandbox) => {
        expect(scanWorkers()).toBe(before);
        const counted = await sandbox.execute(
          'print(await count("needle"), (await grep("need")).total, (await find_all("ne(ed)le")).matches[0].groups[0])',
        );
        expect(counted.stdout).toBe('1 1 ed\n');
        expect(scanWorkers()).toBe(before);
      });
    }
  });
});
