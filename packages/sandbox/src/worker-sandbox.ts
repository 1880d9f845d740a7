import type { Worker } from 'node:worker_threads';
import type { ExecuteOptions, JsonValue, REPLResult, VariableInfo } from '@rlm/protocol';
import { RlmError } from '@rlm/protocol/core';
import { bootWorker, warmSpareAfterLongPayload } from './boot-worker.js';
import { HeldTexts } from './context-ops/held-scan.js';
import type { ScanOperation } from './context-ops/scan-messages.js';
import { isSharedText } from './context-ops/shared-text.js';
import { poisonedError } from './engine/engine-faults.js';
import { compiledEngine } from './engine/load-quickjs.js';
import { newWatchdogBuffer } from './engine/watchdog-cell.js';
import { callHostFunction } from './host-functions.js';
import type { GetVariableOptions, Sandbox } from './sandbox.js';
import { assertSettable, disposedError } from './sandbox-guards.js';
import type { HostFunction, ResolvedLimits } from './sandbox-options.js';
import { type ResetReason, resetBlockError, resetResult } from './sandbox-reset.js';
import { bindToSignal, type SandboxSetup } from './sandbox-setup.js';
import { SerialQueue } from './serial-queue.js';
import { fromWireError, toWireError } from './wire-error.js';
import type { FromWorker, Request, ToWorker, WorkerBoot } from './worker-messages.js';
import { workerPool } from './worker-pool.js';
import { ABORT_GRACE_MS, EngineWatch } from './worker-watchdog.js';

/** How long `dispose()` waits for an aborted block, then for the reset, before terminating the worker. */
const DISPOSE_GRACE_MS = 1_000;
/** Extra time past a block's own limits before the host gives up on an unresponsive worker. */
const UNRESPONSIVE_GRACE_MS = 10_000;

interface PendingReply {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  /** Settles the request when its worker is terminated: the engine it ran on is gone. */
  kill: (error: RlmError<'sandbox.reset'>, reason: ResetReason) => void;
  /** Aborts the request (when it is abortable), as `dispose()` does. */
  abort: () => void;
}

/** One engine of this sandbox on one worker; a reset replaces it with a fresh one. */
interface Engine {
  worker: Worker;
  abortFlag: Int32Array;
  watchdog: SharedArrayBuffer;
  /** Watches this engine's requests from out here. */
  watch: EngineWatch;
  /** Removes this sandbox's listeners from the worker. */
  detach: () => void;
}

/**
 * A sandbox whose engine runs in a worker_thread: CPU-bound guest code never blocks the host's
 * event loop, host functions run here and are reached by message passing, and aborts reach
 * running guest code through a shared flag the engine's interrupt handler reads.
 *
 * A watchdog outside the engine (worker-watchdog.ts) terminates the worker when guest code
 * overruns its deadline (a native builtin the interrupt handler cannot stop) or ignores an abort;
 * the sandbox then comes back on a fresh engine with the same payloads and host-set variables, and
 * the block reports `sandbox.reset`. The worker comes from the process's pool and, when this
 * sandbox is disposed cleanly and held no long payload, goes back to it after freeing this
 * sandbox's engine (see worker-pool.ts); otherwise it is terminated.
 */
export class WorkerSandbox implements Sandbox {
  readonly isolation = 'worker' as const;
  readonly #setup: SandboxSetup;
  readonly #functions: Record<string, HostFunction>;
  readonly #limits: ResolvedLimits;
  readonly #queue = new SerialQueue();
  readonly #replies = new Map<number, PendingReply>();
  readonly #hostCalls = new Map<number, AbortController>();
  /** What the host set with `setVariable`, replayed on a fresh engine after a reset. */
  readonly #variables = new Map<string, JsonValue>();
  /** The long payloads' text, held here: helper scans of them are answered here first. */
  readonly #held: HeldTexts;
  #engine: Engine | undefined;
  /** A fresh engine being started after a reset; requests wait for it. */
  #restarting: Promise<void> | undefined;
  #nextId = 1;
  #poisonReason: string | undefined;
  #disposed = false;
  #resets = 0;
  #unbind: () => void = () => {};

  private constructor(setup: SandboxSetup) {
    this.#setup = setup;
    this.#functions = setup.functions;
    this.#limits = setup.init.limits;
    this.#held = new HeldTexts({ timeoutMs: this.#limits.scanTimeoutMs });
  }

  static async create(setup: SandboxSetup): Promise<WorkerSandbox> {
    const sandbox = new WorkerSandbox(setup);
    // While the worker starts: helper calls on a long payload are answered here (see `#runHeldScan`).
    if (setup.init.contexts.some(isSharedText)) HeldTexts.warmUp();
    sandbox.#attach(await sandbox.#boot());
    sandbox.#unbind = bindToSignal(setup.signal, () => sandbox.dispose());
    return sandbox;
  }

  /** Starts an engine on a worker: the payloads, plus every variable the host has set so far. */
  async #boot(): Promise<{ worker: Worker; boot: WorkerBoot }> {
    const init = { ...this.#setup.init, variables: [...this.#variables] };
    // The main thread compiles the engine once; each worker gets the compiled module. A fresh
    // worker starts while it compiles (see `bootWorker`).
    const boot = compiledEngine().then(
      (compiled): WorkerBoot => ({
        type: 'boot',
        init: { ...init, compiled },
        abortFlag: new SharedArrayBuffer(4),
        watchdog: newWatchdogBuffer(),
      }),
    );
    return { worker: await bootWorker(boot), boot: await boot };
  }

  #attach({ worker, boot }: { worker: Worker; boot: WorkerBoot }): void {
    const onMessage = (message: FromWorker): void => this.#onMessage(worker, message);
    const onError = (error: Error): void => this.#poison(`the worker failed: ${error.message}`);
    const onExit = (code: number): void => {
      if (this.#disposed) this.#rejectAll(disposedError);
      else this.#poison(`the worker exited (code ${code})`);
    };
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    const watch = new EngineWatch(boot.watchdog, (reason) => this.#reset(reason));
    this.#engine = {
      worker,
      abortFlag: new Int32Array(boot.abortFlag),
      watchdog: boot.watchdog,
      watch,
      detach: () => {
        watch.stop();
        worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      },
    };
  }

  get #current(): Engine {
    if (this.#engine === undefined) throw poisonedError('the sandbox has no engine');
    return this.#engine;
  }

  #onMessage(worker: Worker, message: FromWorker): void {
    if (message.type === 'reply') {
      const pending = this.#replies.get(message.id);
      this.#replies.delete(message.id);
      if (message.ok) pending?.resolve(message.value);
      else pending?.reject(fromWireError(message.error));
    } else if (message.type === 'hostCall') {
      this.#runHostCall(worker, message);
    } else if (message.type === 'heldScan') {
      this.#runHeldScan(worker, message);
    } else if (message.type === 'hostCancel') {
      this.#hostCalls.get(message.callId)?.abort();
      this.#hostCalls.delete(message.callId);
    }
  }

  #runHostCall(
    worker: Worker,
    { callId, name, args }: { callId: number; name: string; args: JsonValue[] },
  ): void {
    const controller = new AbortController();
    this.#hostCalls.set(callId, controller);
    const gate = () => this.#disposed;
    const maxHostCallChars = this.#limits.maxHostCallChars;
    callHostFunction(
      { name, args, signal: controller.signal },
      { functions: this.#functions, gate, maxHostCallChars },
    )
      .then(
        (text) => this.#post(worker, { type: 'hostResult', callId, ok: true, text }),
        (error: unknown) =>
          this.#post(worker, { type: 'hostResult', callId, ok: false, error: toWireError(error) }),
      )
      .finally(() => this.#hostCalls.delete(callId));
  }

  /**
   * Answers a helper's scan of a long payload from the text this thread holds, within the held-scan
   * budget; past it (or for a payload not held here) the reply has no text, and the worker's scan
   * thread runs the scan. A scan error goes back as the scan thread would report it.
   */
  #runHeldScan(
    worker: Worker,
    { callId, payload, operation }: { callId: number; payload: string; operation: ScanOperation },
  ): void {
    const index = Number(payload.slice('context_'.length));
    const shared = this.#setup.init.contexts[index];
    let reply: ToWorker;
    try {
      const outcome = isSharedText(shared) ? this.#held.scan(shared, operation) : undefined;
      reply = {
        type: 'hostResult',
        callId,
        ok: true,
        text: outcome === undefined ? undefined : JSON.stringify(outcome.value),
      };
    } catch (error) {
      reply = { type: 'hostResult', callId, ok: false, error: toWireError(error) };
    }
    this.#post(worker, reply);
  }

  /** Posts to `worker` if it still serves this sandbox (call ids are only unique per worker). */
  #post(worker: Worker, message: ToWorker): void {
    if (this.#disposed || this.#poisonReason !== undefined) return;
    if (this.#engine?.worker === worker) worker.postMessage(message);
  }

  #poison(reason: string): void {
    if (this.#poisonReason !== undefined) return;
    this.#poisonReason = reason;
    this.#abortHostCalls();
    this.#rejectAll(() => poisonedError(reason));
  }

  #abortHostCalls(): void {
    for (const controller of this.#hostCalls.values()) controller.abort();
    this.#hostCalls.clear();
  }

  /** `failure` is called only when something waits: an error with its stack costs more than a reply. */
  #rejectAll(failure: () => Error): void {
    if (this.#replies.size === 0) return;
    const error = failure();
    for (const pending of this.#replies.values()) pending.reject(error);
    this.#replies.clear();
  }

  /**
   * Terminates the worker (its engine overran a deadline, ignored an abort, or asked to be
   * replaced), settles what was waiting on it, and starts a fresh engine.
   */
  #reset(reason: ResetReason): void {
    const engine = this.#engine;
    if (engine === undefined || this.#poisonReason !== undefined) return;
    this.#resets += 1;
    this.#engine = undefined;
    engine.detach();
    void engine.worker.terminate();
    this.#abortHostCalls();
    const blockError = resetBlockError(reason, {
      limits: this.#limits,
      abortGraceMs: ABORT_GRACE_MS,
    });
    const error = new RlmError({
      code: 'sandbox.reset',
      message: blockError.message,
      details: { reason },
    });
    const pending = [...this.#replies.values()];
    this.#replies.clear();
    for (const reply of pending) reply.kill(error, reason);
    // Disposing: nothing will run on a fresh engine.
    if (this.#disposed) return;
    const restarting = this.#boot().then(
      (started) => {
        // Disposed meanwhile: nothing will use (or give back) this worker.
        if (this.#disposed) void started.worker.terminate();
        else this.#attach(started);
      },
      (failure: unknown) =>
        this.#poison(
          `the sandbox could not start a fresh engine after a reset: ${failure instanceof Error ? failure.message : String(failure)}`,
        ),
    );
    this.#restarting = restarting;
    // Once it is over, requests start without waiting a turn for it.
    void restarting.then(() => {
      if (this.#restarting === restarting) this.#restarting = undefined;
    });
  }

  get poisoned(): boolean {
    return this.#poisonReason !== undefined;
  }

  /** The worker thread serving this sandbox (after `dispose()` it may serve the next one). */
  get threadId(): number {
    return this.#current.worker.threadId;
  }

  get disposed(): boolean {
    return this.#disposed;
  }

  get resets(): number {
    return this.#resets;
  }

  /**
   * Posts `request` to the engine and settles with its reply. `signal` and (when `abortable`)
   * `dispose()` abort it. Everything a request needs is set up here, per request, with no timer of
   * its own: the engine's watch (worker-watchdog.ts) polls for every request at once.
   */
  #request(
    request: Request,
    {
      signal,
      abortable = false,
      onKill,
    }: {
      signal?: AbortSignal;
      abortable?: boolean;
      /** What the request settles with (rather than rejecting) when its worker is terminated. */
      onKill?: (error: RlmError<'sandbox.reset'>, reason: ResetReason) => unknown;
    } = {},
  ): Promise<unknown> {
    if (this.#poisonReason !== undefined) return Promise.reject(poisonedError(this.#poisonReason));
    const engine = this.#current;
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      // Disposing an engine runs no guest code; everything else is watched from out here, and an
      // execute also against a worker that answers nothing long past every limit.
      const watched =
        request.type === 'dispose'
          ? undefined
          : engine.watch.begin(
              request.type === 'execute'
                ? this.#limits.blockTimeoutMs + this.#limits.cpuSliceMs + UNRESPONSIVE_GRACE_MS
                : undefined,
            );
      let aborted = false;
      const onAbort = (): void => {
        if (aborted) return;
        aborted = true;
        // The flag stops CPU-bound code at the next interrupt check; the message wakes a block
        // that is awaiting host calls.
        Atomics.store(engine.abortFlag, 0, id);
        this.#post(engine.worker, { type: 'abort', id });
        if (watched !== undefined) engine.watch.aborted(watched);
      };
      const settle = (): void => {
        if (watched !== undefined) engine.watch.end(watched);
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
        kill: (error, reason) => {
          settle();
          if (onKill === undefined) reject(error);
          else resolve(onKill(error, reason));
        },
        abort: abortable ? onAbort : () => {},
      });
      engine.worker.postMessage({ type: 'request', id, request } satisfies ToWorker);
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  async execute(code: string, options: ExecuteOptions = {}): Promise<REPLResult> {
    const variables = Object.entries(options.variables ?? {});
    for (const [name, value] of variables)
      assertSettable(name, value, Object.keys(this.#functions));
    return this.#serially(async () => {
      const signal = options.signal;
      // Recorded before they are sent, so that an engine started after a reset during this block
      // gets them too (as the engine that ran the block did).
      for (const [name, value] of variables) this.#variables.set(name, value);
      const started = performance.now();
      const result = (await this.#request(
        variables.length > 0 ? { type: 'execute', code, variables } : { type: 'execute', code },
        {
          ...(signal === undefined ? {} : { signal }),
          abortable: true,
          onKill: (_error, reason) =>
            resetResult(
              resetBlockError(reason, { limits: this.#limits, abortGraceMs: ABORT_GRACE_MS }),
              performance.now() - started,
            ),
        },
      )) as REPLResult;
      // The engine poisoned itself during this block: later calls must fail fast, here too.
      if (result.error?.code === 'sandbox.poisoned') this.#poison(result.error.message);
      // The engine could not stop what the block left running: it asks to be replaced.
      else if (result.error?.code === 'sandbox.reset' && this.#engine !== undefined) {
        this.#reset('jobs');
      }
      return result;
    });
  }

  async getVariable(
    name: string,
    options: GetVariableOptions = {},
  ): Promise<JsonValue | undefined> {
    return this.#serially(
      async () =>
        (await this.#request(
          {
            type: 'getVariable',
            name,
            ...(options.maxChars === undefined ? {} : { maxChars: options.maxChars }),
          },
          { abortable: true },
        )) as JsonValue | undefined,
    );
  }

  async setVariable(name: string, value: JsonValue): Promise<void> {
    assertSettable(name, value, Object.keys(this.#functions));
    await this.#serially(async () => {
      await this.#request({ type: 'setVariable', name, value });
      this.#variables.set(name, value);
    });
  }

  async listVariables(): Promise<VariableInfo[]> {
    return this.#serially(
      async () =>
        (await this.#request({ type: 'listVariables' }, { abortable: true })) as VariableInfo[],
    );
  }

  /** Runs `task` after earlier requests and any engine restart; refused once disposed. */
  #serially<T>(task: () => Promise<T>): Promise<T> {
    if (this.#disposed) return Promise.reject(disposedError());
    const start = (): Promise<T> => (this.#disposed ? Promise.reject(disposedError()) : task());
    // No extra promise or turn per request unless an engine is being restarted.
    return this.#queue.run(() => this.#restarting?.then(start) ?? start());
  }

  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#unbind();
    // Stops the running block (or read) while its abort can still be posted; nothing queued
    // behind it will start.
    for (const pending of this.#replies.values()) pending.abort();
    this.#disposed = true;
    this.#abortHostCalls();
    // Give the aborted block a moment to report back (and a restart to finish), then have the
    // worker free its engine and WASM instance and go back to the pool. A worker that cannot do
    // that in time (still busy, failed, poisoned) is terminated whatever it is doing. Anything
    // still waiting is rejected.
    const idle = await withinGrace(this.#queue.run(async () => undefined).then(() => true));
    const engine = this.#engine;
    if (engine !== undefined) {
      if (
        idle &&
        this.#poisonReason === undefined &&
        this.#poolable &&
        (await withinGrace(this.#resetEngine()))
      ) {
        engine.detach();
        workerPool.give(engine.worker);
      } else {
        engine.detach();
        await engine.worker.terminate();
        if (idle && this.#poisonReason === undefined && !this.#poolable) {
          const { memoryBytes } = this.#limits;
          void compiledEngine().then(
            (compiled) => warmSpareAfterLongPayload(memoryBytes, compiled),
            () => warmSpareAfterLongPayload(memoryBytes),
          );
        }
      }
    }
    this.#rejectAll(disposedError);
  }

  /**
   * Whether the worker may go back to the pool. Not after a long (shared) payload: its WASM memory
   * grew to hold it, and WASM memory is only given back when the instance is collected, which an
   * idle worker never gets round to; terminating the worker releases it at once. Starting a fresh
   * worker later costs less than loading such a payload did.
   */
  get #poolable(): boolean {
    return !this.#setup.init.contexts.some(isSharedText);
  }

  /** Asks the worker to free this sandbox's engine; true once it has and waits for a new boot. */
  async #resetEngine(): Promise<boolean> {
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
