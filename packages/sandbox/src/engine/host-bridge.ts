import { setMaxListeners } from 'node:events';
import type { JsonValue } from '@rlm/protocol';
import { type ErrorCode, RlmError } from '@rlm/protocol/core';
import type {
  QuickJSContext,
  QuickJSDeferredPromise,
  QuickJSHandle,
} from 'quickjs-emscripten-core';
import { newGuestString } from './new-guest-string.js';

/** Runs one host call for the guest; the engine supplies it (directly or through a worker). */
export type HostCaller = (
  name: string,
  args: JsonValue[],
  signal: AbortSignal,
) => Promise<JsonValue | undefined>;

interface Pending {
  deferred: QuickJSDeferredPromise;
  /** The host function called, for the count of calls a block never awaited. */
  name: string;
}

/**
 * The promise bridge: a guest call to a host function gets a guest promise at once, the host
 * work runs concurrently, and the result settles the guest promise later. Calls belong to the
 * block that made them: when the block ends, its calls are aborted and any result that arrives
 * afterwards is dropped (generation counter), so late results never resume guest code.
 */
export class HostBridge {
  readonly #context: QuickJSContext;
  readonly #caller: HostCaller;
  readonly #pending = new Set<Pending>();
  #generation = 0;
  #controller = blockController();
  #wake: (() => void) | undefined;
  #settledSinceWait = false;

  constructor(context: QuickJSContext, caller: HostCaller) {
    this.#context = context;
    this.#caller = caller;
  }

  /** Host calls started and not yet settled in the current block. */
  get inFlight(): number {
    return this.#pending.size;
  }

  /** Handles a guest call: returns the guest promise handle (the library disposes it). */
  start(name: string, argsJson: string): QuickJSHandle {
    const context = this.#context;
    const deferred = context.newPromise();
    const entry: Pending = { deferred, name };
    const generation = this.#generation;
    const signal = this.#controller.signal;
    this.#pending.add(entry);
    let args: JsonValue[];
    try {
      args = JSON.parse(argsJson) as JsonValue[];
    } catch {
      args = [];
    }
    const settle = (apply: () => void): void => {
      if (generation !== this.#generation || !this.#pending.has(entry)) return;
      this.#pending.delete(entry);
      apply();
      this.#settledSinceWait = true;
      this.#wake?.();
    };
    let work: Promise<JsonValue | undefined>;
    try {
      work = this.#caller(name, args, signal);
    } catch (error) {
      work = Promise.reject(error);
    }
    work.then(
      (value) =>
        settle(() => {
          const text = value === undefined ? undefined : JSON.stringify(value);
          const handle =
            text === undefined
              ? context.undefined
              : (newGuestString(context, text) ?? context.newString(text));
          if (context.typeof(handle) !== 'string' && text !== undefined) {
            // newString returns a non-string handle instead of throwing when memory is short.
            handle.dispose();
            this.#reject(deferred, 'InternalError', 'out of memory');
            return;
          }
          deferred.resolve(handle);
          if (text !== undefined) handle.dispose();
        }),
      (error: unknown) =>
        settle(() => {
          const { name: errorName, message } = describeHostError(error);
          this.#reject(deferred, errorName, message);
        }),
    );
    return deferred.handle;
  }

  #reject(deferred: QuickJSDeferredPromise, name: string, message: string): void {
    const errorHandle = this.#context.newError({ name, message });
    deferred.reject(errorHandle);
    errorHandle.dispose();
  }

  /** Resolves once some call settles, the deadline passes, or `signal` aborts. */
  waitForSettle(
    deadline: number,
    signal: AbortSignal,
  ): Promise<'settled' | 'deadline' | 'aborted'> {
    if (this.#settledSinceWait) {
      this.#settledSinceWait = false;
      return Promise.resolve('settled');
    }
    return new Promise((resolve) => {
      const done = (outcome: 'settled' | 'deadline' | 'aborted'): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.#wake = undefined;
        this.#settledSinceWait = false;
        resolve(outcome);
      };
      const onAbort = (): void => done('aborted');
      const timer = setTimeout(() => done('deadline'), Math.max(0, deadline - Date.now()));
      this.#wake = () => done('settled');
      if (signal.aborted) done('aborted');
      else signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /**
   * Ends the current block's calls: aborts their signals, drops their late results and frees
   * their guest promises (left pending forever, so code waiting on them never resumes). Returns
   * how many calls of each function were still pending: the block never awaited them.
   */
  endBlock(): Record<string, number> {
    this.#generation += 1;
    this.#controller.abort();
    this.#controller = blockController();
    const unawaited: Record<string, number> = {};
    for (const entry of this.#pending) {
      unawaited[entry.name] = (unawaited[entry.name] ?? 0) + 1;
      entry.deferred.dispose();
    }
    this.#pending.clear();
    this.#settledSinceWait = false;
    return unawaited;
  }
}

/** Errors the guest should see under JavaScript's own names (a bad pattern is a SyntaxError). */
const GUEST_ERROR_NAMES: Partial<Record<ErrorCode, string>> = {
  'sandbox.invalid_pattern': 'SyntaxError',
  'sandbox.invalid_value': 'TypeError',
};

function describeHostError(error: unknown): { name: string; message: string } {
  if (RlmError.is(error)) {
    return { name: GUEST_ERROR_NAMES[error.code] ?? 'RlmError', message: error.message };
  }
  if (error instanceof Error) {
    const name = /^[A-Za-z]{1,40}$/.test(error.name) ? error.name : 'Error';
    return { name, message: error.message };
  }
  return { name: 'Error', message: String(error) };
}

/** Every host call of a block listens to this signal; a fan-out of many calls is normal. */
function blockController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}
