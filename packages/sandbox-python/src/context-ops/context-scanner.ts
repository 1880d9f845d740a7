import { setMaxListeners } from 'node:events';
import { Worker } from 'node:worker_threads';
import { type JsonValue, RlmError } from '@rlm/protocol';
import { builtScript } from '../host/built-script.js';
import type { FromScanWorker, ScanOperation, ToScanWorker } from './scan-messages.js';

/** The helpers, in the order the prompt lists them. */
export const CONTEXT_HELPER_NAMES: readonly string[] = [
  'grep',
  'find_all',
  'count',
  'lines',
  'chunk',
];

const CONTEXT_NAME = /^context(_\d+)?$/;

/**
 * How long a scan worker may take to take a scan up (start, receive the payload text) before it
 * is given up: far beyond any start-up, only there so a wedged worker cannot hang a block.
 */
const STARTUP_LIMIT_MS = 60_000;

/** Argument schemas (zod) load on the first helper call, not with every sandbox. */
const helperArguments = () => import('./helper-arguments.js');

export interface ContextScannerOptions {
  /** How long one scan may run before its worker is terminated. */
  timeoutMs: number;
  /** Most characters of text in one result. */
  maxChars: number;
}

/**
 * Serves one Python sandbox's context helpers on the host. Payload texts (non-string payloads
 * as their 2-space JSON) are copied into a scan worker started on first use; a scan past its
 * deadline terminates the worker (the next scan starts a fresh one), so a catastrophic pattern
 * never blocks the host.
 */
export class ContextScanner {
  readonly #options: ContextScannerOptions;
  readonly #payloads = new Map<string, JsonValue>();
  #worker: Worker | undefined;
  #tail: Promise<unknown> = Promise.resolve();
  #nextRequest = 1;
  #disposed = false;

  constructor(options: ContextScannerOptions) {
    this.#options = options;
  }

  /** Records the payload bound to `context_N` (other names are ignored). */
  setPayload(name: string, value: JsonValue): void {
    if (!CONTEXT_NAME.test(name)) return;
    const key = name === 'context' ? 'context_0' : name;
    this.#payloads.set(key, value);
    this.#worker?.postMessage({
      type: 'payload',
      name: key,
      text: payloadText(value),
    } satisfies ToScanWorker);
  }

  /**
   * Runs one helper call.
   *
   * @throws RlmError `sandbox.invalid_value`, `sandbox.invalid_pattern`, `sandbox.pattern_timeout`
   */
  async run(helper: string, args: JsonValue[], signal: AbortSignal): Promise<JsonValue> {
    const { parseHelperCall } = await helperArguments();
    const request = parseHelperCall(helper, args, this.#options.maxChars);
    if (!this.#payloads.has(request.payload)) {
      throw new RlmError({
        code: 'sandbox.invalid_value',
        message: `${helper}: there is no ${request.payload} (this sandbox has ${this.#payloads.size} context payload(s))`,
        details: { name: helper, reason: `no ${request.payload}` },
      });
    }
    const work = this.#tail.then(() => {
      signal.throwIfAborted();
      return this.#scan(request.payload, request.operation, signal);
    });
    this.#tail = work.catch(() => undefined);
    return work;
  }

  #scan(payload: string, operation: ScanOperation, signal: AbortSignal): Promise<JsonValue> {
    const worker = this.#ensureWorker();
    const requestId = this.#nextRequest++;
    const { timeoutMs } = this.#options;
    return new Promise<JsonValue>((resolve, reject) => {
      const cleanup = (): void => {
        clearTimeout(timer);
        worker.off('message', onMessage).off('error', onError);
        signal.removeEventListener('abort', onAbort);
      };
      const stopWorker = (): void => {
        if (this.#worker === worker) this.#worker = undefined;
        void worker.terminate();
      };
      const onMessage = (message: FromScanWorker): void => {
        if (message.requestId !== requestId) return;
        if (message.type === 'started') {
          clearTimeout(timer);
          timer = setTimeout(() => onDeadline(timeoutMs), timeoutMs);
          return;
        }
        cleanup();
        if (message.ok) resolve(message.value);
        else reject(new Error(message.message));
      };
      const onError = (error: Error): void => {
        cleanup();
        stopWorker();
        reject(error);
      };
      const onAbort = (): void => {
        cleanup();
        stopWorker();
        reject(signal.reason);
      };
      const onDeadline = (limitMs: number): void => {
        cleanup();
        stopWorker();
        reject(
          new RlmError({
            code: 'sandbox.pattern_timeout',
            message: `the scan took longer than ${limitMs} ms and was stopped; simplify the pattern (nested quantifiers like (a+)+ can take exponential time)`,
            details: { limitMs },
          }),
        );
      };
      // The scan's own deadline starts when the worker reports it has taken the scan up.
      let timer = setTimeout(() => onDeadline(STARTUP_LIMIT_MS), STARTUP_LIMIT_MS);
      worker.on('message', onMessage).on('error', onError);
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
    const worker = new Worker(builtScript('./scan-worker.js', import.meta.url), {
      stdout: true,
      stderr: true,
    });
    setMaxListeners(0, worker);
    worker.unref();
    for (const [name, value] of this.#payloads) {
      worker.postMessage({
        type: 'payload',
        name,
        text: payloadText(value),
      } satisfies ToScanWorker);
    }
    this.#worker = worker;
    return worker;
  }

  /** Stops the scan worker; idempotent. */
  dispose(): void {
    this.#disposed = true;
    void this.#worker?.terminate();
    this.#worker = undefined;
  }
}

/** What the helpers scan: a string payload as is, anything else as its 2-space JSON. */
function payloadText(value: JsonValue): string {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}
