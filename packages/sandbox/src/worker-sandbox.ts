import type { Worker } from 'node:worker_threads';
import type { ExecuteOptions, JsonValue, REPLResult, VariableInfo } from '@rlm/protocol';
import { poisonedError } from './engine/engine-faults.js';
import { compiledEngine } from './engine/load-quickjs.js';
import type { Sandbox } from './sandbox.js';
import { assertSettable, disposedError } from './sandbox-guards.js';
import type { HostFunction } from './sandbox-options.js';
import { bindToSignal, type SandboxSetup } from './sandbox-setup.js';
import { SerialQueue } from './serial-queue.js';
import { fromWireError, toWireError } from './wire-error.js';
import type { FromWorker, Request, ToWorker, WorkerBoot } from './worker-messages.js';
import { workerPool } from './worker-pool.js';

/** How long `dispose()` waits for an aborted block, then for the reset, before terminating the worker. */
const DISPOSE_GRACE_MS = 1_000;
/** Extra time past a block's own limits before the host gives up on an unresponsive worker. */
const WATCHDOG_GRACE_MS = 10_000;

interface PendingReply {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

/**
 * A sandbox whose engine runs in a worker_thread: CPU-bound guest code never blocks the host's
 * event loop, host functions run here and are reached by message passing, and aborts reach
 * running guest code through a shared flag the engine's interrupt handler reads. The worker comes
 * from the process's pool and, when this sandbox is disposed cleanly, goes back to it after freeing
 * this sandbox's engine (see worker-pool.ts); otherwise it is terminated.
 */
export class WorkerSandbox implements Sandbox {
  readonly isolation = 'worker' as const;
  readonly #worker: Worker;
  readonly #functions: Record<string, HostFunction>;
  readonly #abortFlag: Int32Array;
  readonly #watchdogMs: number;
  readonly #queue = new SerialQueue();
  readonly #replies = new Map<number, PendingReply>();
  readonly #hostCalls = new Map<number, AbortController>();
  /** Aborted by `dispose()`: stops the running block. */
  readonly #lifetime = new AbortController();
  #nextId = 1;
  #poisonReason: string | undefined;
  #disposed = false;
  #unbind: () => void = () => {};
  /** The worker failed or exited before it answered the boot (rather than refusing it). */
  #lostBeforeReady = false;
  /** Removes this sandbox's listeners from the worker (before it goes back to the pool). */
  #detach: () => void = () => {};

  private constructor(worker: Worker, setup: SandboxSetup, abortFlag: SharedArrayBuffer) {
    this.#worker = worker;
    this.#functions = setup.functions;
    this.#abortFlag = new Int32Array(abortFlag);
    const { limits } = setup.init;
    this.#watchdogMs = limits.blockTimeoutMs + limits.cpuSliceMs + WATCHDOG_GRACE_MS;
  }

  static async create(setup: SandboxSetup): Promise<WorkerSandbox> {
    const abortFlag = new SharedArrayBuffer(4);
    // The main thread compiles the engine once; each worker gets the compiled module.
    const boot: WorkerBoot = {
      type: 'boot',
      init: { ...setup.init, compiled: await compiledEngine() },
      abortFlag,
    };
    // A pooled worker can die (killed, out of memory) between its last sandbox and this boot; then
    // the next one gets the boot. Each retry uses up a pooled worker, and a fresh worker that dies
    // before it is ready is a real failure, so this ends.
    for (;;) {
      const pooled = workerPool.idleCount > 0;
      const sandbox = WorkerSandbox.#boot(workerPool.take(), setup, boot);
      try {
        await sandbox.#started();
      } catch (error) {
        if (pooled && sandbox.#lostBeforeReady) continue;
        throw error;
      }
      workerPool.warm();
      sandbox.#unbind = bindToSignal(setup.signal, () => sandbox.dispose());
      return sandbox;
    }
  }

  /** Sends the boot message; the worker's answer and exit are events, delivered after this. */
  static #boot(worker: Worker, setup: SandboxSetup, boot: WorkerBoot): WorkerSandbox {
    try {
      worker.postMessage(boot);
    } catch (error) {
      // A boot that cannot be cloned: the taken worker is ref'd and would keep the process alive.
      void worker.terminate();
      throw error;
    }
    return new WorkerSandbox(worker, setup, boot.abortFlag);
  }

  #started(): Promise<void> {
    return new Promise((resolve, reject) => {
      const onMessage = (message: FromWorker): void => {
        if (message.type === 'ready') {
          cleanup();
          this.#listen();
          resolve();
        } else if (message.type === 'initFailed') {
          cleanup();
          void this.#worker.terminate();
          reject(fromWireError(message.error));
        }
      };
      const onError = (error: Error): void => {
        cleanup();
        this.#lostBeforeReady = true;
        reject(error);
      };
      // Without this a worker that dies before answering (it may have been started long before,
      // as a spare) would leave creation waiting forever.
      const onExit = (code: number): void => {
        cleanup();
        this.#lostBeforeReady = true;
        reject(poisonedError(`the worker exited (code ${code}) before it was ready`));
      };
      const cleanup = (): void => {
        this.#worker.off('message', onMessage);
        this.#worker.off('error', onError);
        this.#worker.off('exit', onExit);
      };
      this.#worker.on('message', onMessage);
      this.#worker.on('error', onError);
      this.#worker.on('exit', onExit);
    });
  }

  #listen(): void {
    const onMessage = (message: FromWorker): void => this.#onMessage(message);
    const onError = (error: Error): void => this.#poison(`the worker failed: ${error.message}`);
    const onExit = (code: number): void => {
      if (this.#disposed) this.#rejectAll(disposedError());
      else this.#poison(`the worker exited (code ${code})`);
    };
    this.#worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    this.#detach = () => {
      this.#worker.off('message', onMessage).off('error', onError).off('exit', onExit);
    };
  }

  #onMessage(message: FromWorker): void {
    if (message.type === 'reply') {
      const pending = this.#replies.get(message.id);
      this.#replies.delete(message.id);
      if (message.ok) pending?.resolve(message.value);
      else pending?.reject(fromWireError(message.error));
    } else if (message.type === 'hostCall') {
      this.#runHostCall(message.callId, message.name, message.args);
    } else if (message.type === 'hostCancel') {
      this.#hostCalls.get(message.callId)?.abort();
      this.#hostCalls.delete(message.callId);
    }
  }

  #runHostCall(callId: number, name: string, args: JsonValue[]): void {
    const controller = new AbortController();
    this.#hostCalls.set(callId, controller);
    const fn = Object.hasOwn(this.#functions, name) ? this.#functions[name] : undefined;
    const work =
      fn === undefined
        ? Promise.reject(new Error(`no host function named ${name}`))
        : Promise.resolve().then(() => fn.call(args, { signal: controller.signal }));
    work
      .then(
        (value) => this.#post({ type: 'hostResult', callId, ok: true, value }),
        (error: unknown) =>
          this.#post({ type: 'hostResult', callId, ok: false, error: toWireError(error) }),
      )
      .finally(() => this.#hostCalls.delete(callId));
  }

  #post(message: ToWorker): void {
    if (!this.#disposed && this.#poisonReason === undefined) this.#worker.postMessage(message);
  }

  #poison(reason: string): void {
    if (this.#poisonReason !== undefined) return;
    this.#poisonReason = reason;
    for (const controller of this.#hostCalls.values()) controller.abort();
    this.#hostCalls.clear();
    this.#rejectAll(poisonedError(reason));
  }

  #rejectAll(error: Error): void {
    for (const pending of this.#replies.values()) pending.reject(error);
    this.#replies.clear();
  }

  get poisoned(): boolean {
    return this.#poisonReason !== undefined;
  }

  /** The worker thread serving this sandbox (after `dispose()` it may serve the next one). */
  get threadId(): number {
    return this.#worker.threadId;
  }

  get disposed(): boolean {
    return this.#disposed;
  }

  #request(request: Request, signal?: AbortSignal): Promise<unknown> {
    if (this.#poisonReason !== undefined) return Promise.reject(poisonedError(this.#poisonReason));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        // The flag stops CPU-bound code at the next interrupt check; the message wakes a block
        // that is awaiting host calls.
        Atomics.store(this.#abortFlag, 0, id);
        this.#post({ type: 'abort', id });
      };
      const watchdog =
        request.type === 'execute'
          ? setTimeout(() => {
              this.#poison('the worker stopped responding');
              void this.#worker.terminate();
            }, this.#watchdogMs)
          : undefined;
      const settle = (): void => {
        clearTimeout(watchdog);
        signal?.removeEventListener('abort', onAbort);
      };
      this.#replies.set(id, {
        resolve: (value) => {
          settle();
          resolve(value);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      this.#worker.postMessage({ type: 'request', id, request } satisfies ToWorker);
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  async execute(code: string, options: ExecuteOptions = {}): Promise<REPLResult> {
    return this.#serially(async () => {
      const signal =
        options.signal === undefined
          ? this.#lifetime.signal
          : AbortSignal.any([options.signal, this.#lifetime.signal]);
      const result = (await this.#request({ type: 'execute', code }, signal)) as REPLResult;
      // The engine poisoned itself during this block: later calls must fail fast, here too.
      if (result.error?.code === 'sandbox.poisoned') this.#poison(result.error.message);
      return result;
    });
  }

  async getVariable(name: string): Promise<JsonValue | undefined> {
    return this.#serially(
      async () => (await this.#request({ type: 'getVariable', name })) as JsonValue | undefined,
    );
  }

  async setVariable(name: string, value: JsonValue): Promise<void> {
    assertSettable(name, value, Object.keys(this.#functions));
    await this.#serially(() => this.#request({ type: 'setVariable', name, value }));
  }

  async listVariables(): Promise<VariableInfo[]> {
    return this.#serially(
      async () => (await this.#request({ type: 'listVariables' })) as VariableInfo[],
    );
  }

  #serially<T>(task: () => Promise<T>): Promise<T> {
    if (this.#disposed) return Promise.reject(disposedError());
    return this.#queue.run(() => (this.#disposed ? Promise.reject(disposedError()) : task()));
  }

  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#unbind();
    this.#lifetime.abort();
    this.#disposed = true;
    for (const controller of this.#hostCalls.values()) controller.abort();
    this.#hostCalls.clear();
    // Give the aborted block a moment to report back, then have the worker free its engine and
    // WASM instance and go back to the pool. A worker that cannot do that in time (still busy,
    // failed, poisoned) is terminated whatever it is doing. Anything still waiting is rejected.
    const idle = await withinGrace(this.#queue.run(async () => undefined).then(() => true));
    if (idle && this.#poisonReason === undefined && (await withinGrace(this.#reset()))) {
      this.#detach();
      workerPool.give(this.#worker);
    } else {
      await this.#worker.terminate();
    }
    this.#rejectAll(disposedError());
  }

  /** Asks the worker to free this sandbox's engine; true once it has and waits for a new boot. */
  async #reset(): Promise<boolean> {
    try {
      await this.#request({ type: 'dispose' });
      return this.#poisonReason === undefined;
    } catch {
      return false;
    }
  }
}

/** `work`'s result if it settles within `DISPOSE_GRACE_MS`, else (or if it fails) false. */
async function withinGrace(work: Promise<boolean>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), DISPOSE_GRACE_MS);
  });
  try {
    return await Promise.race([work.catch(() => false), expired]);
  } finally {
    clearTimeout(timer);
  }
}
