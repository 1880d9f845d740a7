import vm from 'node:vm';
import type { JsonValue } from '@rlm/protocol';
import type { ScanOperation } from './scan-messages.js';
import { runScan, ScanPayload } from './scan-payload.js';
import { heldSharedText, type SharedText } from './shared-text.js';

/**
 * Most time a helper scan may take on the thread that already holds the context's text (the
 * caller's, where `createSandbox` ran) before it is stopped and handed to the scan worker. A
 * literal or simple pattern over 50 MB takes 5–20 ms there; the scan worker would first have to
 * start (30–100 ms) and decode its own copy of the text (40–90 ms, and the text's size again in
 * memory, twice while it decodes). A pattern past the budget costs the calling thread this much
 * once; the sandbox's later calls on that payload go to the scan worker (see `ContextScanner`).
 */
export const HELD_SCAN_BUDGET_MS = 50;

/** A scan's value, or `undefined` when it was left to the scan worker. Errors are thrown. */
export type HeldScanOutcome = { value: JsonValue } | undefined;

/**
 * Answers a helper's scan from text some thread already holds, or declines (`undefined`): the
 * scan worker then runs it. Errors are the scan's own (as the scan worker would report them).
 */
export type HeldScan = (
  scan: { payload: string; shared: SharedText; operation: ScanOperation },
  signal: AbortSignal,
) => Promise<HeldScanOutcome>;

/** The code of the error a `vm` script stopped by its timeout throws. */
const TIMED_OUT = 'ERR_SCRIPT_EXECUTION_TIMEOUT';

/**
 * What budgeted jobs run in on this thread (made on first use): a `vm` context whose one property
 * is the job of the moment (set and cleared around each synchronous run, so nothing of one job is
 * there for the next), and the script that calls it.
 */
let runner: { context: { job: (() => JsonValue) | undefined }; script: vm.Script } | undefined;

/**
 * Runs `job` on this thread, stopped once it has run `budgetMs`: `vm`'s timeout terminates the
 * running JavaScript, a regex in the middle of backtracking included, and leaves the thread as it
 * was. `undefined` when stopped.
 */
function withinBudget(job: () => JsonValue, budgetMs: number): HeldScanOutcome {
  runner ??= {
    context: vm.createContext({ job: undefined }) as { job: (() => JsonValue) | undefined },
    script: new vm.Script('job()'),
  };
  const { context, script } = runner;
  context.job = job;
  try {
    return { value: script.runInContext(context, { timeout: budgetMs }) as JsonValue };
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === TIMED_OUT) return undefined;
    throw error;
  } finally {
    context.job = undefined;
  }
}

/**
 * Runs each kind of scan once on a tiny text, so the first real held scan finds its code (and the
 * `vm` context) ready: once per thread.
 */
function warmUp(): void {
  const sample = new ScanPayload('a line with a needle\nanother line\n', false);
  const operations: ScanOperation[] = [
    { op: 'grep', source: 'needle', flags: '', context: 1, maxItems: 2, maxChars: 200 },
    { op: 'find_all', source: 'ne(ed)le', flags: '', maxItems: 2, maxChars: 200 },
    { op: 'count', source: 'needle', flags: '' },
    { op: 'lines', start: 1, end: 2, maxChars: 200 },
    { op: 'chunk', size: 10, overlap: 2, maxItems: 100 },
  ];
  for (const operation of operations) withinBudget(() => runScan(sample, operation), 1_000);
}
let warm = false;

/**
 * The long payloads one sandbox's text is held for on this thread, ready to be scanned here: the
 * same scans the scan worker runs (scan-payload.ts), on the string itself rather than a decoded
 * copy, each within `HELD_SCAN_BUDGET_MS` (or the scan timeout, if shorter). Line indexes are built
 * on first use and kept with the payload, as the scan worker keeps its own.
 */
export class HeldTexts {
  readonly #payloads = new WeakMap<SharedText, ScanPayload>();
  readonly #budgetMs: number;
  readonly #codePoints: boolean;

  constructor({ budgetMs, codePoints = false }: { budgetMs: number; codePoints?: boolean }) {
    this.#budgetMs = Math.min(budgetMs, HELD_SCAN_BUDGET_MS);
    this.#codePoints = codePoints;
  }

  /** Readies this thread's scan code, once per thread (cheap: it scans a line of text). */
  static warmUp(): void {
    if (warm) return;
    warm = true;
    try {
      warmUp();
    } catch {
      // Cold code is slower, not wrong.
    }
  }

  /** `operation` on `shared`'s text when this thread holds it and the scan fits the budget. */
  scan(shared: SharedText, operation: ScanOperation): HeldScanOutcome {
    let payload = this.#payloads.get(shared);
    if (payload === undefined) {
      const text = heldSharedText(shared);
      if (text === undefined) return undefined;
      payload = new ScanPayload(text, this.#codePoints);
      this.#payloads.set(shared, payload);
    }
    const scanned = payload;
    return withinBudget(() => runScan(scanned, operation), this.#budgetMs);
  }
}

/** Scans of long payloads whose text this thread holds (an inline sandbox's), answered here. */
export function localHeldScan(scanTimeoutMs: number): HeldScan {
  const held = new HeldTexts({ budgetMs: scanTimeoutMs });
  return async ({ shared, operation }) => held.scan(shared, operation);
}
