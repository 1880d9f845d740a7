import { setMaxListeners } from 'node:events';
import type { JsonValue } from '@rlm/protocol';
import { type ErrorCode, RlmError, truncationMarker } from '@rlm/protocol/core';
import type {
  QuickJSContext,
  QuickJSDeferredPromise,
  QuickJSHandle,
} from 'quickjs-emscripten-core';

/**
 * Runs one host call for the guest; the engine supplies it (directly or through a worker). It
 * resolves with the result as JSON text (`undefined` for no result), already checked against
 * `maxHostCallChars` on the host's side (see `toBoundedJson`).
 */
export type HostCaller = (
  name: string,
  args: JsonValue[],
  signal: AbortSignal,
) => Promise<string | undefined>;

/** How the bridge makes guest values: through the scaffold, so guest code cannot intercept it. */
export interface GuestValues {
  /** The guest value of a host result (JSON text). */
  parse(text: string): QuickJSHandle;
  /** A guest error (with a code the guest's `describeError` trusts, when given). */
  error(name: string, message: string, code: ErrorCode | undefined): QuickJSHandle;
}

interface Pending {
  deferred: QuickJSDeferredPromise;
  name: string;
}

type Outcome = { ok: true; text: string | undefined } | { ok: false; error: unknown };

/**
 * The promise bridge: a guest call to a host function gets a guest promise at once, the host
 * work runs concurrently, and its result is applied to the guest promise later, inside one of the
 * block's slices (`applySettled`), so any guest code the settlement reaches (a `then` getter) runs
 * under the block's budget.
 *
 * Calls belong to the block that made them. Between blocks the bridge is closed: a call then (from
 * a job left behind, a getter reached while the host reads a variable) is refused without
 * reaching the host. When a block ends, its calls are aborted and any result that arrives
 * afterwards is dropped (generation counter), so late results never resume guest code.
 */
export class HostBridge {
  readonly #context: QuickJSContext;
  readonly #caller: HostCaller;
  readonly #values: GuestValues;
  /** Most characters of a host error's message passed to the guest. */
  readonly #maxMessageChars: number;
  readonly #pending = new Set<Pending>();
  /** Results that arrived and wait for the block's next slice. */
  readonly #arrived: { entry: Pending; outcome: Outcome }[] = [];
  #generation = 0;
  #open = false;
  #controller = blockController();
  /** Whether a host call of this block was handed `#controller`'s signal (only then is it aborted). */
  #signalGiven = false;
  #wake: (() => void) | undefined;

  constructor(
    context: QuickJSContext,
    caller: HostCaller,
    { values, maxMessageChars }: { values: GuestValues; maxMessageChars: number },
  ) {
    this.#context = context;
    this.#caller = caller;
    this.#values = values;
    this.#maxMessageChars = maxMessageChars;
  }

  /** Host calls of the current block that have not been applied yet. */
  get inFlight(): number {
    return this.#pending.size;
  }

  /** Lets the current block's guest code call host functions. */
  open(): void {
    this.#open = true;
  }

  /** Handles a guest call: returns the guest promise handle (the library disposes it). */
  start(name: string, argsJson: string): QuickJSHandle {
    const deferred = this.#context.newPromise();
    if (!this.#open) {
      this.#rejectWith(deferred, {
        name: 'TypeError',
        message: `${name}: host functions can only be called while a block runs`,
        code: undefined,
      });
      return deferred.handle;
    }
    const entry: Pending = { deferred, name };
    const generation = this.#generation;
    this.#pending.add(entry);
    let args: JsonValue[];
    try {
      args = JSON.parse(argsJson) as JsonValue[];
    } catch {
      args = [];
    }
    const arrive = (outcome: Outcome): void => {
      if (generation !== this.#generation || !this.#pending.has(entry)) return;
      this.#arrived.push({ entry, outcome });
      this.#wake?.();
    };
    let work: Promise<string | undefined>;
    try {
      this.#signalGiven = true;
      work = this.#caller(name, args, this.#controller.signal);
    } catch (error) {
      work = Promise.reject(error);
    }
    work.then(
      (text) => arrive({ ok: true, text }),
      (error: unknown) => arrive({ ok: false, error }),
    );
    return deferred.handle;
  }

  /** Whether results wait to be applied. */
  get hasArrived(): boolean {
    return this.#arrived.length > 0;
  }

  /**
   * Settles the guest promises whose results arrived. Call inside a slice of the block: resolving
   * with an object reads its `then`, which guest code may have turned into a getter.
   */
  applyArrived(): void {
    const arrived = this.#arrived.splice(0);
    for (const { entry, outcome } of arrived) {
      if (!this.#pending.delete(entry)) continue;
      if (outcome.ok) this.#resolve(entry, outcome.text);
      else {
        const described = describeHostError(outcome.error);
        if (described.message.length > this.#maxMessageChars) {
          described.message = `${described.message.slice(0, this.#maxMessageChars)}${truncationMarker(described.message.length - this.#maxMessageChars)}`;
        }
        this.#rejectWith(entry.deferred, described);
      }
    }
  }

  #resolve(entry: Pending, text: string | undefined): void {
    const { deferred } = entry;
    let value: QuickJSHandle | undefined;
    try {
      value = text === undefined ? undefined : this.#values.parse(text);
    } catch {
      // Parsing fails in the guest only when its memory is exhausted.
      this.#rejectWith(deferred, {
        name: 'InternalError',
        message: 'out of memory',
        code: undefined,
      });
      return;
    }
    try {
      deferred.resolve(value);
    } catch {
      // An interrupted `then` lookup: the guest promise is rejected, and the block's limit reports
      // why. (Never keep the library's error: it holds the whole module.)
      deferred.dispose();
    } finally {
      value?.dispose();
    }
  }

  #rejectWith(
    deferred: QuickJSDeferredPromise,
    { name, message, code }: { name: string; message: string; code: ErrorCode | undefined },
  ): void {
    let error: QuickJSHandle;
    try {
      error = this.#values.error(name, message, code);
    } catch {
      error = this.#context.newError({ name, message });
    }
    try {
      deferred.reject(error);
    } catch {
      deferred.dispose();
    } finally {
      error.dispose();
    }
  }

  /** Resolves once a result arrives, the deadline passes, or one of `signals` aborts. */
  waitForSettle(
    deadline: number,
    signals: readonly AbortSignal[],
  ): Promise<'settled' | 'deadline' | 'aborted'> {
    if (this.#arrived.length > 0) return Promise.resolve('settled');
    return new Promise((resolve) => {
      const done = (outcome: 'settled' | 'deadline' | 'aborted'): void => {
        clearTimeout(timer);
        for (const signal of signals) signal.removeEventListener('abort', onAbort);
        this.#wake = undefined;
        resolve(outcome);
      };
      const onAbort = (): void => done('aborted');
      const timer = setTimeout(() => done('deadline'), Math.max(0, deadline - Date.now()));
      this.#wake = () => done('settled');
      if (signals.some((signal) => signal.aborted)) done('aborted');
      else for (const signal of signals) signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /**
   * Ends the current block's calls and closes the bridge: aborts their signals, drops their late
   * results and frees their guest promises (left pending forever, so code waiting on them never
   * resumes). Until `open()`, guest calls are refused. Returns how many calls of each function
   * were still pending: the block never awaited them.
   */
  close(): Record<string, number> {
    this.#open = false;
    this.#generation += 1;
    // Aborting creates an error with a stack: worth it only when some call holds the signal.
    if (this.#signalGiven) {
      this.#signalGiven = false;
      this.#controller.abort();
      this.#controller = blockController();
    }
    const unawaited: Record<string, number> = {};
    for (const entry of this.#pending) {
      unawaited[entry.name] = (unawaited[entry.name] ?? 0) + 1;
      entry.deferred.dispose();
    }
    this.#pending.clear();
    this.#arrived.length = 0;
    return unawaited;
  }
}

/** Errors the guest should see under JavaScript's own names (a bad pattern is a SyntaxError). */
const GUEST_ERROR_NAMES: Partial<Record<ErrorCode, string>> = {
  'sandbox.invalid_pattern': 'SyntaxError',
  'sandbox.invalid_value': 'TypeError',
  'sandbox.too_large': 'RangeError',
};

function describeHostError(error: unknown): {
  name: string;
  message: string;
  code: ErrorCode | undefined;
} {
  if (RlmError.is(error)) {
    return {
      name: GUEST_ERROR_NAMES[error.code] ?? 'RlmError',
      message: error.message,
      code: error.code,
    };
  }
  if (error instanceof Error) {
    const name = /^[A-Za-z]{1,40}$/.test(error.name) ? error.name : 'Error';
    return { name, message: error.message, code: undefined };
  }
  return { name: 'Error', message: String(error), code: undefined };
}

/** Every host call of a block listens to this signal; a fan-out of many calls is normal. */
function blockController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}
