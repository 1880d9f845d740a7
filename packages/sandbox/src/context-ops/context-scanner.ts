import { setMaxListeners } from 'node:events';
import { Worker } from 'node:worker_threads';
import type { JsonValue } from '@rlm/protocol';
import { RlmError } from '@rlm/protocol/core';
import { scriptUrl } from '../script-url.js';
import { SerialQueue } from '../serial-queue.js';
import { fromWireError } from '../wire-error.js';
import type { HeldScan } from './held-scan.js';
import { type HelperCaps, type HelperRequest, quickHelperCall } from './helper-request.js';
import type { FromScanWorker, ScanOperation, ToScanWorker } from './scan-messages.js';
import { isSharedText, type SharedText } from './shared-text.js';

/** The context helpers, in the order the prompt documents them. */
export const CONTEXT_HELPER_NAMES: readonly string[] = [
  'grep',
  'find_all',
  'count',
  'lines',
  'chunk',
];

const CONTEXT_NAME = /^context(_\d+)?$/;

/**
 * The full argument checker, loaded only for a call `quickHelperCall` cannot tell is valid (in
 * practice, a call with bad arguments): its zod schemas would otherwise load zod into the sandbox
 * worker (60–300 ms of a fresh worker on a loaded machine) in the way of the first helper call.
 * `import()` caches the module, so later calls are cheap.
 */
const helperArguments = () => import('./helper-arguments.js');

/**
 * Characters of shared (long) context text from which a sandbox starts its scan worker, and has it
 * decode the context, when it is created rather than on the first helper call. Measured
 * (2026-11-29, RSS per live inline sandbox): a started scan worker costs ~9 MB whatever the
 * context, and the decoded copy ~2× the context until the worker next collects garbage (16 Mi
 * characters: 17.6 MB lazy, 60.1 MB started and decoded), several times a 1–4 MiB context. A
 * lazy start costs the first helper call 100–300 ms on a loaded machine: over 20 MB, 55–73× a
 * warm call (7.6×–46× with the thread started but the context decoded on the first scan), where
 * the target is 3×. The density target covers 1–20 MiB and the first-call target is measured over
 * 20 MB and 50 MB; this round size below 20 MB keeps the first-call target and the density of
 * every context under it.
 */
export const PRESTART_SCAN_WORKER_MIN_CHARS = 16 * 1024 * 1024;

/**
 * Most characters of shared text a prestarted scan worker decodes as soon as it gets them.
 * Decoding 20 MB takes 10–25 ms (most of a first scan), but the decoded copy, and the copy out of
 * shared memory decoding makes, cost about twice the text at once whether or not a helper is ever
 * called: over 50 MB that was +95 MB of peak RSS (330 against 235 MB on the executor's 50 MB
 * memory workload, which calls no helper). Beyond this much text the memory matters more, and
 * the first scan of a payload decodes it.
 */
export const DECODE_AHEAD_MAX_CHARS = 32 * 1024 * 1024;

/**
 * The payload the warm-up helper call scans (see `ready`): guest calls name payloads `context_N`
 * only, so none can reach it.
 */
const WARM_UP_PAYLOAD = 'warm-up';
const WARM_UP_TEXT = 'a line with a needle\nanother line\n';
const WARM_UP_PATTERN = 'needle';

/**
 * How long a scan worker may take to take a scan up (start, receive and decode the payload)
 * before it is given up: far beyond any start-up, only there so a wedged worker cannot hang a block.
 */
const STARTUP_LIMIT_MS = 60_000;

/** Checks a helper call's arguments (as one REPL's scaffold sends them) and makes it a scan. */
export type HelperCallParser = (
  helper: string,
  args: JsonValue[],
  caps: HelperCaps,
) => HelperRequest | Promise<HelperRequest>;

/** The JavaScript scaffold's calls: plain checks first, the zod schemas only when they cannot tell. */
const parseJavaScriptCall: HelperCallParser = async (helper, args, caps) =>
  quickHelperCall(helper, args, caps) ??
  (await helperArguments()).parseHelperCall(helper, args, caps);

export interface ContextScannerOptions {
  /** How long one scan may run before its worker is terminated. */
  timeoutMs: number;
  /** Most characters of text in one result. */
  maxChars: number;
  /**
   * Offsets in results count code points (Python's `str` indices) instead of UTF-16 units
   * (JavaScript's). Default false.
   */
  codePoints?: boolean;
  /** How helper calls are checked (default: the JavaScript scaffold's arguments). */
  parseCall?: HelperCallParser;
  /**
   * Answers scans of long (shared) payloads from the text the thread that made them holds, before
   * any scan worker is involved (see held-scan.ts). With it, no scan worker starts with the
   * sandbox (`prestart()` does nothing): one starts only for a scan `heldScan` declines, and
   * from then on that payload's scans go to it.
   */
  heldScan?: HeldScan;
}

/**
 * Runs the context helpers for one sandbox, of either REPL. Payloads are kept here and their text
 * (non-string payloads as JSON) is copied into a scan worker; a long string payload comes as a
 * `SharedText`, which the scan worker reads from shared memory (or piece by piece) instead. The
 * scan worker decodes a payload on its first scan, and starts on the first helper call, or with the
 * sandbox (`prestart()`) once the shared text totals `PRESTART_SCAN_WORKER_MIN_CHARS`: a sandbox
 * with a shorter context that no helper is called in costs no thread and no second copy of it.
 * Each scan gets a deadline, and a scan past it terminates the worker (a fresh one is started for
 * the next scan), so a catastrophic pattern never freezes the thread that runs the sandbox.
 */
export class ContextScanner {
  readonly #options: ContextScannerOptions;
  /** Payload values; their text is made when a scan worker first needs it. */
  readonly #payloads = new Map<string, JsonValue | SharedText>();
  readonly #queue = new SerialQueue();
  #worker: Worker | undefined;
  #nextRequest = 1;
  #disposed = false;
  /** Set by `prestart()` for a context that long: scan workers decode shared text as they get it. */
  #decodeAhead = false;
  /** Characters of shared text sent to be decoded ahead so far (at most `DECODE_AHEAD_MAX_CHARS`). */
  #decodedAhead = 0;
  /** Payloads a held scan declined: the scan worker holds their text from then on. */
  readonly #declined = new Set<string>();

  constructor(options: ContextScannerOptions) {
    this.#options = options;
  }

  /** Records a payload bound to `context`, `context_N` (others are ignored). */
  setPayload(name: string, value: JsonValue | SharedText): void {
    if (!CONTEXT_NAME.test(name)) return;
    const key = name === 'context' ? 'context_0' : name;
    // The same shared payload again: the worker has it (and may have decoded it).
    if (isSharedText(value) && this.#payloads.get(key) === value) return;
    this.#payloads.set(key, value);
    this.#declined.delete(key);
    if (this.#worker !== undefined) this.#sendPayload(this.#worker, key, value);
  }

  /**
   * Gives the scan worker a payload, which it decodes (if shared) on its first scan, or at once
   * when the context is long enough to have started the scan worker with the sandbox and the text
   * decoded ahead stays within `DECODE_AHEAD_MAX_CHARS`.
   */
  #sendPayload(worker: Worker, name: string, value: JsonValue | SharedText): void {
    const text = payloadText(value);
    let decodeNow = false;
    if (
      this.#decodeAhead &&
      isSharedText(text) &&
      this.#decodedAhead + text.length <= DECODE_AHEAD_MAX_CHARS
    ) {
      this.#decodedAhead += text.length;
      decodeNow = true;
    }
    worker.postMessage({
      type: 'payload',
      name,
      text,
      decodeNow,
      codePoints: this.#options.codePoints === true,
    } satisfies ToScanWorker);
  }

  /**
   * Starts the scan worker now if the shared (long) payloads total at least
   * `PRESTART_SCAN_WORKER_MIN_CHARS`, so the thread starts while the sandbox starts and the model
   * thinks rather than during the first helper call. The scan worker then decodes them as it
   * gets them: decoding 20 MB takes 10–25 ms on a loaded machine, several times a warm scan, so a
   * first call that decoded would still miss the 3× target (measured 7.6× at once after create,
   * 46× after a 1 s pause); the decoded copy costs the context's size again, so only up to
   * `DECODE_AHEAD_MAX_CHARS`.
   */
  prestart(): void {
    if (this.#disposed || this.#worker !== undefined || this.#options.heldScan !== undefined)
      return;
    let sharedChars = 0;
    for (const value of this.#payloads.values()) {
      if (isSharedText(value)) sharedChars += value.length;
    }
    if (sharedChars < PRESTART_SCAN_WORKER_MIN_CHARS) return;
    this.#decodeAhead = true;
    this.#ensureWorker();
  }

  /**
   * Settles once a scan worker started by `prestart()` (if any) has started, taken its payloads
   * and answered one warm-up helper call: a sandbox that waits for this before it reports ready
   * answers its first helper call without paying for the thread's start. The warm-up goes the
   * whole way a helper call goes on both threads (argument check, request, scan, reply) on a tiny
   * payload no guest can name, since each of those steps runs cold code the first time. Never
   * rejects: a scan worker that fails to start fails the first scan instead. With `heldScan` and
   * a long payload (no scan worker yet), checks one call of each helper instead, so the first real
   * call does not run that code cold on this thread.
   */
  async ready(): Promise<void> {
    const worker = this.#worker;
    if (worker === undefined) {
      if (this.#options.heldScan !== undefined && [...this.#payloads.values()].some(isSharedText)) {
        warmArgumentChecks(this.#options.maxChars);
      }
      return;
    }
    worker.postMessage({
      type: 'payload',
      name: WARM_UP_PAYLOAD,
      text: WARM_UP_TEXT,
    } satisfies ToScanWorker);
    const request = quickHelperCall('count', [WARM_UP_PATTERN], {
      maxChars: this.#options.maxChars,
    });
    if (request === undefined) return;
    let onExit = (): void => {};
    const exited = new Promise<void>((resolve) => {
      onExit = resolve;
      worker.once('exit', onExit);
    });
    const answered = this.#scan(WARM_UP_PAYLOAD, request.operation, new AbortController().signal);
    await Promise.race([answered.catch(() => undefined), exited]);
    worker.off('exit', onExit);
  }

  /**
   * Runs one helper call.
   *
   * @throws RlmError `sandbox.invalid_value`, `sandbox.invalid_pattern`, `sandbox.pattern_timeout`
   */
  async run(helper: string, args: JsonValue[], signal: AbortSignal): Promise<JsonValue> {
    const parseCall = this.#options.parseCall ?? parseJavaScriptCall;
    const request = await parseCall(helper, args, { maxChars: this.#options.maxChars });
    if (!this.#payloads.has(request.payload)) {
      throw new RlmError({
        code: 'sandbox.invalid_value',
        message: `${helper}: there is no ${request.payload} (this sandbox has ${this.#payloads.size} context payload(s))`,
        details: { name: helper, reason: `no ${request.payload}` },
      });
    }
    return this.#queue.run(async () => {
      signal.throwIfAborted();
      const held = await this.#heldScan(request, signal);
      if (held !== undefined) return held.value;
      signal.throwIfAborted();
      return this.#scan(request.payload, request.operation, signal);
    });
  }

  /**
   * The scan answered from held text (see `ContextScannerOptions.heldScan`), or `undefined` for
   * the scan worker to run. A payload whose held scan was declined once stays with the scan
   * worker: it has decoded its own copy of the text by then, and the holding thread stays free.
   */
  async #heldScan(
    { payload, operation }: HelperRequest,
    signal: AbortSignal,
  ): Promise<{ value: JsonValue } | undefined> {
    const heldScan = this.#options.heldScan;
    const value = this.#payloads.get(payload);
    if (heldScan === undefined || !isSharedText(value) || this.#declined.has(payload)) {
      return undefined;
    }
    const outcome = await heldScan({ payload, shared: value, operation }, signal);
    if (outcome === undefined) this.#declined.add(payload);
    return outcome;
  }

  #scan(payload: string, operation: ScanOperation, signal: AbortSignal): Promise<JsonValue> {
    const worker = this.#ensureWorker();
    const requestId = this.#nextRequest++;
    const { timeoutMs } = this.#options;
    return new Promise<JsonValue>((resolve, reject) => {
      const finish = (): void => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
        signal.removeEventListener('abort', onAbort);
      };
      const stopWorker = (): void => {
        if (this.#worker === worker) this.#worker = undefined;
        void worker.terminate();
      };
      const onTimeout = (limitMs: number): void => {
        finish();
        stopWorker();
        reject(
          new RlmError({
            code: 'sandbox.pattern_timeout',
            message: `the scan took longer than ${limitMs} ms and was stopped; simplify the pattern (nested quantifiers like (a+)+ can take exponential time)`,
            details: { limitMs },
          }),
        );
      };
      const onMessage = (message: FromScanWorker): void => {
        if (message.requestId !== requestId) return;
        // The deadline covers the scan alone: a cold worker's start-up and the copy of the
        // payload it needed first do not count against the pattern. (The block's own limits
        // and abort still bound the whole call.)
        if (message.type === 'started') {
          clearTimeout(timer);
          timer = setTimeout(() => onTimeout(timeoutMs), timeoutMs);
          return;
        }
        finish();
        if (message.ok) resolve(message.value);
        else reject(fromWireError(message.error));
      };
      const onError = (error: Error): void => {
        finish();
        stopWorker();
        reject(error);
      };
      const onAbort = (): void => {
        finish();
        stopWorker();
        reject(signal.reason);
      };
      let timer = setTimeout(() => onTimeout(STARTUP_LIMIT_MS), STARTUP_LIMIT_MS);
      worker.on('message', onMessage);
      worker.on('error', onError);
      signal.addEventListener('abort', onAbort, { once: true });
      worker.postMessage({ type: 'run', requestId, payload, operation } satisfies ToScanWorker);
    });
  }

  #ensureWorker(): Worker {
    if (this.#disposed) {
      throw new RlmError({
        code: 'sandbox.disposed',
        message: 'the sandbox was disposed',
        details: {},
      });
    }
    if (this.#worker !== undefined) return this.#worker;
    const worker = new Worker(scriptUrl('./scan-worker.js', import.meta.url), {
      stdout: true,
      stderr: true,
    });
    setMaxListeners(0, worker);
    worker.unref();
    // A scan worker that dies (it crashed, or was terminated) is replaced at the next scan.
    worker.once('exit', () => {
      if (this.#worker === worker) this.#worker = undefined;
    });
    for (const [name, value] of this.#payloads) this.#sendPayload(worker, name, value);
    this.#worker = worker;
    return worker;
  }

  /** The running scan worker, if one is (read by tests to watch its lifetime). */
  get scanWorker(): Worker | undefined {
    return this.#worker;
  }

  /** Stops the scan worker; idempotent. */
  dispose(): void {
    this.#disposed = true;
    void this.#worker?.terminate();
    this.#worker = undefined;
  }
}

/** Checks one call of each helper, for the code it runs (never throws: cold code is only slower). */
function warmArgumentChecks(maxChars: number): void {
  const calls: [string, JsonValue[]][] = [
    ['grep', [WARM_UP_PATTERN, { context: 1 }]],
    ['find_all', [WARM_UP_PATTERN]],
    ['count', [WARM_UP_PATTERN]],
    ['lines', [1, 2]],
    ['chunk', [100]],
  ];
  for (const [helper, args] of calls) {
    try {
      quickHelperCall(helper, args, { maxChars });
    } catch {
      // A warm-up only.
    }
  }
}

/**
 * What the helpers scan: a string payload as is (shared bytes stay shared), anything else as its
 * 2-space JSON text.
 */
function payloadText(value: JsonValue | SharedText): string | SharedText {
  if (typeof value === 'string' || isSharedText(value)) return value;
  return JSON.stringify(value, null, 2);
}
