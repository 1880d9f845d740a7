import type { WorkerOptions } from 'node:worker_threads';
import { describe, expect, it, vi } from 'vitest';
import { withSandbox } from '../sandbox-cases.test-helpers.js';
import { PRESTART_SCAN_WORKER_MIN_CHARS } from './context-scanner.js';
import { HELD_SCAN_BUDGET_MS } from './held-scan.js';

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

/** A pattern V8 backtracks on for far longer than any budget over this text. */
const RUNAWAY = { pattern: '(a+)+b', text: `${'a'.repeat(40)}c\n` };

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

  it('go to a scan worker past the held-scan budget, which still stops a runaway pattern, and stay there', async () => {
    const context = `${RUNAWAY.text}${'x'.repeat(1_048_576)}needle\n`;
    const before = scanWorkers();
    await withSandbox(
      { context, isolation: 'inline', limits: { scanTimeoutMs: HELD_SCAN_BUDGET_MS * 4 } },
      async (sandbox) => {
        const runaway = await sandbox.execute(`await count(${JSON.stringify(RUNAWAY.pattern)})`);
        expect(runaway.error?.code).toBe('sandbox.pattern_timeout');
        expect(scanWorkers()).toBe(before + 1);
        // The runaway scan's worker was stopped; the payload's next scan starts another.
        const counted = await sandbox.execute('await count("needle")');
        expect(counted.stdout).toBe('1\n');
        expect(scanWorkers()).toBe(before + 2);
      },
    );
  });
});
