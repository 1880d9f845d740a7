import type { WorkerOptions } from 'node:worker_threads';
import { describe, expect, it, vi } from 'vitest';
import { withSandbox } from '../sandbox-cases.test-helpers.js';
import {
  HELD_SCAN_BUDGET_MS,
  HELD_SCAN_MAX_BUDGET_MS,
  HELD_SCAN_MS_PER_MIB,
  heldScanBudgetMs,
} from './held-scan.js';

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

describe('a helper scan past the held-scan budget', () => {
  it('goes to a scan worker, which still stops a runaway pattern, and the payload stays there', async () => {
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

describe('helper calls on a long context in a worker sandbox', () => {
  it('are answered by the host, and a runaway pattern still ends at the scan deadline', async () => {
    const context = `${RUNAWAY.text}${'x'.repeat(1_048_576)}needle\n`;
    await withSandbox(
      { context, isolation: 'worker', limits: { scanTimeoutMs: HELD_SCAN_BUDGET_MS * 4 } },
      async (sandbox) => {
        const found = await sandbox.execute(
          'print(await count("needle"), (await find_all("ne(ed)le")).matches[0].index, await lines(1, 1))',
        );
        expect(found.stdout).toBe(`1 ${RUNAWAY.text.length + 1_048_576} ${RUNAWAY.text}`);
        const runaway = await sandbox.execute(`await count(${JSON.stringify(RUNAWAY.pattern)})`);
        expect(runaway.error?.code).toBe('sandbox.pattern_timeout');
        expect((await sandbox.execute('await count("needle")')).stdout).toBe('1\n');
      },
    );
  });
});

describe('heldScanBudgetMs', () => {
  it('grows with the text from the least budget up to the most, and never passes the scan timeout', () => {
    const mib = 1_048_576;
    expect(heldScanBudgetMs(mib, 10_000)).toBe(HELD_SCAN_BUDGET_MS);
    expect(heldScanBudgetMs(50 * mib, 10_000)).toBe(50 * HELD_SCAN_MS_PER_MIB);
    expect(heldScanBudgetMs(1_000 * mib, 10_000)).toBe(HELD_SCAN_MAX_BUDGET_MS);
    expect(heldScanBudgetMs(50 * mib, 20)).toBe(20);
  });
});
