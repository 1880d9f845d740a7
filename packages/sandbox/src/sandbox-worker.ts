/**
 * Entry point of a worker-isolated sandbox: serves one sandbox at a time. Each sandbox's session
 * starts with a boot message (rather than `workerData`, so the worker can be started, and its
 * modules imported, before anyone asks for a sandbox) and builds a fresh QuickJsEngine; a
 * `dispose` request frees the engine and leaves the worker waiting for its next boot, so the host
 * can reuse it (see worker-pool.ts). Nothing of a session outlives it: its engine, pending calls
 * and block controllers all belong to the session.
 *
 * While it waits, the worker builds a blank engine (a fresh WASM instance with the guest prelude
 * evaluated, never used: see blank-engine.ts) of the size its last session had, or the size a
 * `prepare` message names, so the next boot of that size only installs the scaffold on it.
 *
 * Everything imported here must stay free of zod (see `@rlm/protocol/core`): a fresh worker pays
 * for every module it loads.
 */
import { type MessagePort, parentPort } from 'node:worker_threads';
import type { HeldScan } from './context-ops/held-scan.js';
import { BlankEngine } from './engine/blank-engine.js';
import type { HostCaller } from './engine/host-bridge.js';
import type { CompiledEngine } from './engine/load-quickjs.js';
import { QuickJsEngine } from './engine/quickjs-engine.js';
import { sharedWatchdogCell } from './engine/watchdog-cell.js';
import { fromWireError, toWireError } from './wire-error.js';
import type {
  FromWorker,
  Request,
  ToWorker,
  WorkerBoot,
  WorkerPrepare,
} from './worker-messages.js';

if (parentPort === null) throw new Error('sandbox-worker must run in a worker_thread');
const port: MessagePort = parentPort;

const send = (message: FromWorker): void => port.postMessage(message);

interface PendingCall {
  resolve: (text: string | undefined) => void;
  reject: (error: Error) => void;
}

/** One sandbox's life on this worker: its engine and its in-flight work. */
class Session {
  readonly #engine: QuickJsEngine;
  readonly #abortFlag: Int32Array;
  readonly #pendingCalls: Map<number, PendingCall>;
  /** The request running now (the worker runs one at a time): an abort for it aborts `#controller`. */
  #running: number | undefined;
  /** What guest code awaits under; kept from request to request until one is aborted. */
  #controller = new AbortController();
  /** Requests run one at a time (the host serialises them too). */
  #tail: Promise<unknown> = Promise.resolve();

  constructor(
    engine: QuickJsEngine,
    abortFlag: Int32Array,
    pendingCalls: Map<number, PendingCall>,
  ) {
    this.#engine = engine;
    this.#abortFlag = abortFlag;
    this.#pendingCalls = pendingCalls;
  }

  /** Handles one message; aborts and host results are handled at once, while a block awaits. */
  receive(message: ToWorker, end: () => void): void {
    if (message.type === 'abort') {
      if (message.id === this.#running) this.#controller.abort();
      return;
    }
    if (message.type === 'hostResult') {
      const pending = this.#pendingCalls.get(message.callId);
      this.#pendingCalls.delete(message.callId);
      if (message.ok) pending?.resolve(message.text);
      else pending?.reject(fromWireError(message.error));
      return;
    }
    const { id, request } = message;
    this.#tail = this.#tail.then(async () => {
      try {
        const value = await this.#handle(id, request);
        send({ type: 'reply', id, ok: true, value });
      } catch (error) {
        send({ type: 'reply', id, ok: false, error: toWireError(error) });
      }
      // In the same turn as the reply: the host may post the next boot as soon as it sees it.
      if (request.type === 'dispose') end();
    });
  }

  async #handle(id: number, request: Request): Promise<unknown> {
    const engine = this.#engine;
    // Blocks and reads run guest code: an abort reaches them through a controller (while they
    // await) and the shared flag (while guest code runs).
    if (this.#controller.signal.aborted) this.#controller = new AbortController();
    this.#running = id;
    const stop = {
      signal: this.#controller.signal,
      interrupted: () => Atomics.load(this.#abortFlag, 0) === id,
    };
    try {
      switch (request.type) {
        case 'execute':
          for (const [name, value] of request.variables ?? []) engine.setVariable(name, value);
          return await engine.execute(request.code, stop);
        case 'getVariable':
          return engine.getVariable(request.name, { ...stop, maxChars: request.maxChars });
        case 'setVariable':
          engine.setVariable(request.name, request.value);
          return null;
        case 'listVariables':
          return engine.listVariables(stop);
        case 'dispose':
          this.#engine.dispose();
          return null;
      }
    } finally {
      this.#running = undefined;
    }
  }
}

/** Call ids stay unique across this worker's sessions, so no result can reach the wrong one. */
let nextCallId = 1;

function hostCaller(pendingCalls: Map<number, PendingCall>): HostCaller {
  return (name, args, signal) =>
    new Promise((resolve, reject) => {
      const callId = nextCallId++;
      const onAbort = (): void => {
        pendingCalls.delete(callId);
        send({ type: 'hostCancel', callId });
        reject(signal.reason);
      };
      pendingCalls.set(callId, {
        resolve: (value) => {
          signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
        reject: (error) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      });
      signal.addEventListener('abort', onAbort, { once: true });
      send({ type: 'hostCall', callId, name, args });
    });
}

/**
 * Scans of long payloads go to the host first: it holds the text, so it can answer without this
 * worker's scan thread starting and decoding a copy of it (see held-scan.ts).
 */
function heldScan(pendingCalls: Map<number, PendingCall>): HeldScan {
  return ({ payload, operation }, signal) =>
    new Promise((resolve, reject) => {
      const callId = nextCallId++;
      const onAbort = (): void => {
        pendingCalls.delete(callId);
        reject(signal.reason);
      };
      pendingCalls.set(callId, {
        resolve: (text) => {
          signal.removeEventListener('abort', onAbort);
          resolve(text === undefined ? undefined : { value: JSON.parse(text) });
        },
        reject: (error) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      });
      signal.addEventListener('abort', onAbort, { once: true });
      send({ type: 'heldScan', callId, payload, operation });
    });
}

/**
 * The blank engine this worker built while it waited (one at most); the next boot takes it. It is
 * this worker's own cache: built after the last session ended, from nothing that session touched.
 */
let ready: Promise<BlankEngine | undefined> | undefined;

/** Starts building a blank engine (replacing one not taken); a failure just leaves none. */
function prepare({
  memoryBytes,
  compiled,
}: {
  memoryBytes: number;
  compiled?: CompiledEngine;
}): void {
  const previous = ready;
  ready = (async () => {
    (await previous)?.dispose();
    try {
      return await BlankEngine.create(memoryBytes, compiled);
    } catch {
      return undefined;
    }
  })();
}

async function takeReady(): Promise<BlankEngine | undefined> {
  const taken = ready;
  ready = undefined;
  return taken;
}

async function serve(boot: WorkerBoot): Promise<void> {
  const pendingCalls = new Map<number, PendingCall>();
  const blank = await takeReady();
  const prepared = blank?.memoryBytes === boot.init.limits.memoryBytes;
  let engine: QuickJsEngine;
  try {
    engine = await QuickJsEngine.create(boot.init, hostCaller(pendingCalls), {
      watchdog: sharedWatchdogCell(boot.watchdog),
      blank,
      heldScan: heldScan(pendingCalls),
    });
  } catch (error) {
    send({ type: 'initFailed', error: toWireError(error) });
    return;
  }
  const session = new Session(engine, new Int32Array(boot.abortFlag), pendingCalls);
  const onMessage = (message: ToWorker): void => session.receive(message, end);
  const end = (): void => {
    port.off('message', onMessage);
    awaitBoot();
    // The reply is already posted: the host sees the reset at once, and a boot that arrives while
    // this is being built waits for it rather than building another.
    prepare({ memoryBytes: boot.init.limits.memoryBytes, compiled: boot.init.compiled });
  };
  port.on('message', onMessage);
  // With a long payload (a fresh thread), the block path is warmed before ready, so the first block
  // does not compile it. The scan worker waits for the first helper call.
  await engine.helpersReady();
  send({ type: 'ready', prepared });
}

function awaitBoot(): void {
  const onMessage = (message: WorkerBoot | WorkerPrepare | ToWorker): void => {
    if (message.type === 'prepare') {
      prepare(message);
      return;
    }
    // Anything else is late news for a session that has ended: nothing may act on it.
    if (message.type !== 'boot') return;
    port.off('message', onMessage);
    void serve(message);
  };
  port.on('message', onMessage);
}

awaitBoot();
