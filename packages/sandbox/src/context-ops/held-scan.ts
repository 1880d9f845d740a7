import vm from 'node:vm';
import type { JsonValue } from '@rlm/protocol';
import type { ScanOperation } from './scan-messages.js';
import { runBoundedScan, runScan, ScanPayload } from './scan-payload.js';
import { heldSharedText, type SharedText } from './shared-text.js';

/**
 * Least time a helper scan may take on the thread that already holds the context's text (the
 * caller's, where `createSandbox` ran) before it is stopped and handed to the scan worker. A
 * literal or simple pattern over 50 MB takes 5–20 ms there on an idle machine; the scan worker
 * would first have to start (30–100 ms) and decode its own copy of the text (40–90 ms, with the
 * text's size again in memory, twice while it decodes), while the holding thread encodes every
 * piece of the text for it (see text-stream.ts), which costs that thread about as much as a scan.
 * So the budget grows with the text (`HELD_SCAN_MS_PER_MIB`), up to `HELD_SCAN_MAX_BUDGET_MS`,
 * and a loaded machine does not send a cheap scan the expensive way. A pattern past the budget
 * costs the holding thread the budget once; the sandbox's later calls on that payload go to the
 * scan worker (see `ContextScanner`).
 */
export const HELD_SCAN_BUDGET_MS = 50;
/** Budget per MiB of text (so the least budget holds up to about 17 MiB). */
export const HELD_SCAN_MS_PER_MIB = 3;
/** Most time a held scan may take (and so block the holding thread) before it is handed on. */
export const HELD_SCAN_MAX_BUDGET_MS = 250;

/** The held-scan budget for a text of `length` characters under a scan timeout of `timeoutMs`. */
export function heldScanBudgetMs(length: number, timeoutMs: number): number {
  const bySize = Math.max(HELD_SCAN_BUDGET_MS, (length / 1_048_576) * HELD_SCAN_MS_PER_MIB);
  return Math.min(timeoutMs, HELD_SCAN_MAX_BUDGET_MS, Math.round(bySize));
}

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

/** Thrown at a checkpoint of a bounded scan once its budget is spent. */
class BudgetSpent extends Error {}

/**
 * Runs `operation` when it is bounded without a watchdog (see `runBoundedScan`), checking the clock
 * every so many matches; `undefined` when it stopped at its budget. `vm`'s timeout starts a
 * watchdog thread for every run and joins it after, which costs the holding thread 0.2–5 ms on a
 * loaded machine (measured 2026-11-29, 2 cores at load 10: a warm `count` of a literal over 20 MB
 * took 1.2–1.45× its time on the scan thread it replaced), more than the scan itself; a literal
 * pattern or an indexed `lines`/`chunk` cannot backtrack, so a clock read between matches bounds
 * it as well (to within one `indexOf`, linear in the text).
 */
function boundedWithinBudget(
  payload: ScanPayload,
  operation: ScanOperation,
  budgetMs: number,
): HeldScanOutcome | 'unbounded' {
  const deadline = performance.now() + budgetMs;
  try {
    return (
      runBoundedScan(payload, operation, () => {
        if (performance.now() > deadline) throw new BudgetSpent();
      }) ?? 'unbounded'
    );
  } catch (error) {
    if (error instanceof BudgetSpent) return undefined;
    throw error;
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
    { op: 'find_all', source: 'needle', flags: '', maxItems: 2, maxChars: 200 },
    { op: 'count', source: 'needle', flags: '' },
    { op: 'lines', start: 1, end: 2, maxChars: 200 },
    { op: 'chunk', size: 10, overlap: 2, maxItems: 100 },
  ];
  for (const operation of operations) {
    withinBudget(() => runScan(sample, operation), 1_000);
    boundedWithinBudget(sample, operation, 1_000);
  }
}
let warm = false;

/**
 * The long payloads one sandbox's text is held for on this thread, ready to be scanned here: the
 * same scans the scan worker runs (scan-payload.ts), on the string itself rather than a decoded
 * copy, each within its budget (`heldScanBudgetMs`): a scan that cannot backtrack (a literal
 * pattern, an indexed `lines`/`chunk`) by checking the clock as it goes, any other under `vm`'s
 * timeout. Line indexes are built on first use and kept with the payload, as the scan worker
 * keeps its own.
 */
export class HeldTexts {
  readonly #payloads = new WeakMap<SharedText, ScanPayload>();
  readonly #timeoutMs: number;
  readonly #codePoints: boolean;

  /** `timeoutMs`: the scan timeout, the most any budget can be. */
  constructor({ timeoutMs, codePoints = false }: { timeoutMs: number; codePoints?: boolean }) {
    this.#timeoutMs = timeoutMs;
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
    const budgetMs = heldScanBudgetMs(shared.length, this.#timeoutMs);
    const bounded = boundedWithinBudget(scanned, operation, budgetMs);
    if (bounded !== 'unbounded') return bounded;
    return withinBudget(() => runScan(scanned, operation), budgetMs);
  }
}

/** Scans of long payloads whose text this thread holds (an inline sandbox's), answered here. */
export function localHeldScan(scanTimeoutMs: number): HeldScan {
  const held = new HeldTexts({ timeoutMs: scanTimeoutMs });
  return async ({ shared, operation }) => held.scan(shared, operation);
}
