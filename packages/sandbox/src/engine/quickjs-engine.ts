import {
  type BlockError,
  type JsonValue,
  type REPLResult,
  RESERVED_NAMES,
  RlmError,
  truncationMarker,
  type VariableInfo,
} from '@rlm/protocol';
import type {
  QuickJSContext,
  QuickJSHandle,
  QuickJSRuntime,
  QuickJSWASMModule,
} from 'quickjs-emscripten-core';
import { CONTEXT_HELPER_NAMES, ContextScanner } from '../context-ops/context-scanner.js';
import type { ResolvedLimits } from '../sandbox-options.js';
import {
  formatBlockError,
  type GuestErrorInfo,
  guestBlockError,
  limitBlockError,
  limitErrors,
} from './block-outcome.js';
import { GUEST_PRELUDE } from './guest-prelude.js';
import { HostBridge, type HostCaller } from './host-bridge.js';
import { type CompiledEngine, loadQuickJs } from './load-quickjs.js';
import { newGuestString } from './new-guest-string.js';
import { rewriteBlock } from './rewrite-block.js';

/** JS_EVAL_FLAG_ASYNC: top-level await, completion value as a promise of `{ value }`. */
const EVAL_FLAG_ASYNC = 1 << 7;
const BLOCK_FILE = 'block.js';
/** CPU time allowed for the scaffold's own work (listing variables, formatting) after a block. */
const INTERNAL_CALL_MS = 2_000;
/** Upper bound on leftover jobs drained (interrupted) after a block was stopped. */
const MAX_DRAIN_ROUNDS = 1_000;

/** Everything needed to build an engine; plain data so it can cross a worker boundary. */
export interface EngineInit {
  /** Payloads bound to `context_0 …`; `context` aliases `context_0`. */
  contexts: JsonValue[];
  meta: Record<string, JsonValue>;
  /** Host functions, reserved and restored after each block. */
  functionNames: string[];
  /** Context helpers: host functions that are ordinary, rebindable names. */
  helperNames: string[];
  limits: ResolvedLimits;
  /** The engine compiled by another thread (saves a worker compiling it again). */
  compiled?: CompiledEngine;
}

export interface EngineExecuteOptions {
  signal?: AbortSignal;
  /** Checked by the interrupt handler: lets another thread stop CPU-bound code (SharedArrayBuffer flag). */
  interrupted?: () => boolean;
}

type InternalName =
  | 'takeOutput'
  | 'writeStderr'
  | 'formatCompletion'
  | 'takeFinal'
  | 'restore'
  | 'locals'
  | 'listVariables'
  | 'getVariable'
  | 'setVariable'
  | 'setJson'
  | 'alias'
  | 'userNames'
  | 'deleteGlobals'
  | 'describeError'
  | 'holdBallast';

type Settled =
  | { kind: 'value'; holder: QuickJSHandle }
  | { kind: 'thrown'; error: QuickJSHandle }
  | { kind: 'limit'; error: RlmError }
  | { kind: 'fault'; reason: string };

interface BlockClock {
  signal: AbortSignal;
  wallDeadline: number;
  /** Runs guest work under the block's remaining CPU allowance. */
  slice<T>(work: () => T): T;
  /** The limit that stopped the block, if one did. */
  stopped(): Settled | undefined;
}

/** A failure outside QuickJS's own exceptions (host stack overflow, WASM abort): the engine is unusable. */
class EngineFault extends Error {}

/** The scaffold's own work ran out of time (a hostile Proxy or getter): the engine is fine. */
class ScaffoldTimeout extends EngineFault {}

/**
 * One QuickJS runtime + context in its own WASM module, with the scaffold installed. Runs on the
 * thread that owns it (the caller's in `inline` mode, a worker's in `worker` mode).
 */
export class QuickJsEngine {
  readonly #runtime: QuickJSRuntime;
  readonly #context: QuickJSContext;
  readonly #bridge: HostBridge;
  readonly #limits: ResolvedLimits;
  readonly #scanner: ContextScanner;
  #internals: QuickJSHandle | undefined;
  #releaseBallast: QuickJSHandle | undefined;
  #deadline = Number.POSITIVE_INFINITY;
  #interruptCheck: (() => boolean) | undefined;
  #interruptReason: 'cpu' | 'aborted' | 'forced' | undefined;
  #forceInterrupt = false;
  #poisonReason: string | undefined;
  #disposed = false;

  private constructor(module: QuickJSWASMModule, caller: HostCaller, limits: ResolvedLimits) {
    this.#limits = limits;
    const scanner = new ContextScanner({
      timeoutMs: limits.scanTimeoutMs,
      maxChars: limits.maxOutputChars,
    });
    this.#scanner = scanner;
    this.#runtime = module.newRuntime();
    this.#runtime.setMaxStackSize(limits.stackBytes);
    this.#runtime.setInterruptHandler(() => this.#shouldInterrupt());
    this.#context = this.#runtime.newContext();
    // Context helpers run here, on the thread that owns the engine; everything else goes to the host.
    this.#bridge = new HostBridge(this.#context, (name, args, signal) =>
      CONTEXT_HELPER_NAMES.includes(name)
        ? scanner.run(name, args, signal)
        : caller(name, args, signal),
    );
  }

  /** Loads a module, installs the scaffold and injects the context payloads. */
  static async create(init: EngineInit, caller: HostCaller): Promise<QuickJsEngine> {
    const module = await loadQuickJs(init.limits.memoryBytes, init.compiled);
    const engine = new QuickJsEngine(module, caller, init.limits);
    try {
      engine.#install(init);
    } catch (error) {
      engine.dispose();
      throw error;
    }
    return engine;
  }

  /** Why the engine can no longer run code, if it cannot. */
  get poisonReason(): string | undefined {
    return this.#poisonReason;
  }

  #shouldInterrupt(): boolean {
    if (this.#forceInterrupt) {
      this.#interruptReason = 'forced';
      return true;
    }
    if (this.#interruptCheck?.()) {
      this.#interruptReason = 'aborted';
      return true;
    }
    if (Date.now() > this.#deadline) {
      this.#interruptReason = 'cpu';
      return true;
    }
    return false;
  }

  #install(init: EngineInit): void {
    const context = this.#context;
    const config = JSON.stringify({
      reserved: RESERVED_NAMES,
      functions: init.functionNames,
      helpers: init.helperNames,
      meta: init.meta,
      maxOutputChars: this.#limits.maxOutputChars,
      ballastBytes: Math.min(4 * 1024 * 1024, Math.max(256 * 1024, this.#limits.memoryBytes / 64)),
    });
    this.#deadline = Date.now() + INTERNAL_CALL_MS * 5;
    const factory = context.unwrapResult(
      context.evalCode(GUEST_PRELUDE, 'prelude.js', { type: 'global' }),
    );
    const hostCall = context.newFunction('hostCall', (name, argsJson) =>
      this.#bridge.start(context.getString(name), context.getString(argsJson)),
    );
    const configHandle = context.newString(config);
    const result = context.callFunction(factory, context.undefined, hostCall, configHandle);
    factory.dispose();
    hostCall.dispose();
    configHandle.dispose();
    this.#internals = context.unwrapResult(result);
    // Fetched now: calling it later needs no allocation, which matters when the heap is full.
    this.#releaseBallast = context.getProp(this.#internals, 'releaseBallast');
    init.contexts.forEach((payload, index) => {
      this.setVariable(`context_${index}`, payload);
    });
    if (init.contexts.length > 0) this.#callInternal('alias', ['context', 'context_0']).dispose();
    this.#deadline = Number.POSITIVE_INFINITY;
  }

  /** Calls a scaffold internal with a fresh, short CPU allowance; strings become guest strings. */
  #callInternal(
    name: InternalName,
    args: (string | QuickJSHandle)[] = [],
    allowanceMs = INTERNAL_CALL_MS,
  ): QuickJSHandle {
    const context = this.#context;
    const internals = this.#internals;
    if (internals === undefined) throw new EngineFault('scaffold is not installed');
    const owned: QuickJSHandle[] = [];
    const handles = args.map((arg) => {
      if (typeof arg !== 'string') return arg;
      const handle = newGuestString(context, arg) ?? context.newString(arg);
      owned.push(handle);
      if (context.typeof(handle) !== 'string') throw outOfMemory(this.#limits.memoryBytes);
      return handle;
    });
    const previous = this.#deadline;
    const previousReason = this.#interruptReason;
    this.#deadline = Date.now() + allowanceMs;
    this.#interruptReason = undefined;
    try {
      const fn = context.getProp(internals, name);
      const result = this.#guard(() => context.callFunction(fn, context.undefined, handles));
      fn.dispose();
      if (result.error) {
        result.error.dispose();
        if (this.#interruptReason === 'cpu') {
          throw new ScaffoldTimeout(`the scaffold's ${name} ran out of time`);
        }
        throw new EngineFault(`the scaffold's ${name} failed`);
      }
      return result.value;
    } finally {
      this.#deadline = previous;
      this.#interruptReason = previousReason;
      for (const handle of owned) handle.dispose();
    }
  }

  #callInternalString(name: InternalName, args: (string | QuickJSHandle)[] = []): string {
    const handle = this.#callInternal(name, args);
    try {
      return this.#context.getString(handle);
    } finally {
      handle.dispose();
    }
  }

  /** Runs engine work; any non-QuickJS exception means the runtime may be corrupt. */
  #guard<T>(work: () => T): T {
    try {
      return work();
    } catch (error) {
      if (error instanceof RlmError || error instanceof EngineFault) throw error;
      this.#poisonReason = `engine fault: ${error instanceof Error ? error.name : 'unknown'}: ${
        error instanceof Error ? error.message : String(error)
      }`;
      throw new EngineFault(this.#poisonReason);
    }
  }

  /** The guest error's name, message and stack; `undefined` when the scaffold could not read it. */
  #describe(error: QuickJSHandle): GuestErrorInfo | undefined {
    try {
      const text = this.#callInternalString('describeError', [error]);
      return JSON.parse(text) as GuestErrorInfo;
    } catch (failure) {
      if (!(failure instanceof EngineFault) || this.#poisonReason !== undefined) throw failure;
      if (failure instanceof ScaffoldTimeout) {
        return {
          name: 'Error',
          message: 'the thrown value could not be described in time',
          stack: '',
          lineNumber: null,
        };
      }
      return undefined;
    }
  }

  /** Runs one block. Guest errors and limits go into the result; only a dead engine throws. */
  async execute(code: string, options: EngineExecuteOptions = {}): Promise<REPLResult> {
    this.#assertUsable();
    const started = performance.now();
    const namesBefore = this.#callInternalString('userNames');
    let settled: Settled;
    try {
      settled = await this.#run(code, options);
    } catch (error) {
      if (!(error instanceof EngineFault)) throw error;
      settled = { kind: 'fault', reason: error.message };
    } finally {
      this.#bridge.endBlock();
      this.#interruptCheck = undefined;
      this.#deadline = Number.POSITIVE_INFINITY;
    }
    if (settled.kind === 'fault') return this.#faultResult(settled.reason, started);
    try {
      return this.#finish(settled, namesBefore, started);
    } catch (error) {
      if (!(error instanceof EngineFault)) throw error;
      return this.#faultResult(error.message, started);
    }
  }

  async #run(code: string, options: EngineExecuteOptions): Promise<Settled> {
    const clock = this.#startClock(options);
    const source = rewriteBlock(code) ?? code;
    const evaluated = clock.slice(() =>
      this.#context.evalCode(source, BLOCK_FILE, EVAL_FLAG_ASYNC),
    );
    const limit = clock.stopped();
    if (evaluated.error) {
      if (limit === undefined) return { kind: 'thrown', error: evaluated.error };
      evaluated.error.dispose();
      return limit;
    }
    try {
      return limit ?? (await this.#settle(evaluated.value, clock));
    } finally {
      evaluated.value.dispose();
    }
  }

  /** Pumps jobs and awaits host calls until the block's promise settles or a limit stops it. */
  async #settle(promise: QuickJSHandle, clock: BlockClock): Promise<Settled> {
    const limits = this.#limits;
    for (;;) {
      clock.slice(() => this.#pumpJobs());
      const limit = clock.stopped();
      if (limit) return limit;
      const state = this.#context.getPromiseState(promise);
      if (state.type === 'fulfilled') {
        return { kind: 'value', holder: state.notAPromise ? promise.dup() : state.value };
      }
      if (state.type === 'rejected') return { kind: 'thrown', error: state.error };
      if (this.#bridge.inFlight === 0) return { kind: 'limit', error: limitErrors.deadlock() };
      const outcome = await this.#bridge.waitForSettle(clock.wallDeadline, clock.signal);
      if (outcome !== 'settled') {
        const error =
          outcome === 'deadline' ? limitErrors.wall(limits.blockTimeoutMs) : limitErrors.aborted();
        return { kind: 'limit', error };
      }
    }
  }

  /**
   * The block's time accounting: guest code runs in slices, each with an interrupt deadline set
   * to the CPU time the block has left (time spent awaiting host calls does not count).
   */
  #startClock(options: EngineExecuteOptions): BlockClock {
    const limits = this.#limits;
    const signal = options.signal ?? new AbortController().signal;
    let cpuUsed = 0;
    this.#interruptReason = undefined;
    this.#interruptCheck = () => signal.aborted || options.interrupted?.() === true;
    return {
      signal,
      wallDeadline: Date.now() + limits.blockTimeoutMs,
      slice: <T>(work: () => T): T => {
        const start = Date.now();
        this.#deadline = start + (limits.cpuSliceMs - cpuUsed);
        try {
          return this.#guard(work);
        } finally {
          cpuUsed += Date.now() - start;
          this.#deadline = Number.POSITIVE_INFINITY;
        }
      },
      stopped: () => {
        if (this.#interruptReason === 'cpu') {
          return { kind: 'limit', error: limitErrors.cpu(limits.cpuSliceMs) };
        }
        if (this.#interruptReason === 'aborted' || signal.aborted) {
          return { kind: 'limit', error: limitErrors.aborted() };
        }
        return undefined;
      },
    };
  }

  /** Runs queued promise jobs until none is left or the interrupt handler stops one. */
  #pumpJobs(): void {
    while (this.#runtime.hasPendingJob()) {
      const result = this.#runtime.executePendingJobs();
      if (result.error) {
        result.error.dispose();
        if (this.#interruptReason !== undefined) return;
      }
    }
  }

  /** Interrupts every job left over from a stopped block, so none of it runs in the next one. */
  #drainLeftoverJobs(): void {
    this.#forceInterrupt = true;
    try {
      for (let round = 0; round < MAX_DRAIN_ROUNDS && this.#runtime.hasPendingJob(); round++) {
        const result = this.#guard(() => this.#runtime.executePendingJobs(1));
        if (result.error) result.error.dispose();
      }
    } finally {
      this.#forceInterrupt = false;
      this.#interruptReason = undefined;
    }
  }

  #finish(
    settled: Exclude<Settled, { kind: 'fault' }>,
    namesBefore: string,
    started: number,
  ): REPLResult {
    let error: BlockError | null = null;
    let note = '';
    if (settled.kind === 'limit') {
      this.#drainLeftoverJobs();
      error = limitBlockError(settled.error);
    } else if (settled.kind === 'thrown') {
      const info = this.#describe(settled.error);
      settled.error.dispose();
      // The scaffold fails to describe an error almost only when memory is exhausted.
      error = info === undefined ? undescribedError() : guestBlockError(info);
      if (error.code === 'sandbox.out_of_memory') note = this.#recoverFromOutOfMemory(namesBefore);
    }
    try {
      if (settled.kind === 'value') note += this.#printCompletion(settled.holder);
      return this.#collect({ error, note, started });
    } catch (failure) {
      // QuickJS throws `null` when it cannot even allocate the error object, so an exhausted
      // heap often shows up only here, when the scaffold's own work fails.
      if (!(failure instanceof EngineFault) || this.#poisonReason !== undefined) throw failure;
      const recovered = this.#recoverFromOutOfMemory(namesBefore);
      if (this.#poisonReason !== undefined) throw new EngineFault(this.#poisonReason);
      return this.#collect({ error: undescribedError(), note: note + recovered, started });
    } finally {
      if (settled.kind === 'value') settled.holder.dispose();
    }
  }

  #printCompletion(holder: QuickJSHandle): string {
    try {
      this.#callInternal('formatCompletion', [holder]).dispose();
      return '';
    } catch (failure) {
      if (!(failure instanceof ScaffoldTimeout)) throw failure;
      return 'note: the value of the last expression could not be printed in time\n';
    }
  }

  #collect({
    error,
    note,
    started,
  }: {
    error: BlockError | null;
    note: string;
    started: number;
  }): REPLResult {
    const unrestored = JSON.parse(this.#callInternalString('restore')) as string[];
    const restoreNote =
      unrestored.length > 0
        ? `note: could not restore the scaffold name(s) ${unrestored.join(', ')}\n`
        : '';
    const finalHandle = this.#callInternal('takeFinal');
    const finalAnswer =
      this.#context.typeof(finalHandle) === 'string' ? this.#context.getString(finalHandle) : null;
    finalHandle.dispose();
    const locals = this.#readLocals();
    const output = this.#readOutput();
    return {
      stdout: output.stdout,
      stderr: output.stderr + (error ? formatBlockError(error) : '') + note + restoreNote,
      locals,
      executionTime: performance.now() - started,
      llmCalls: [],
      finalAnswer,
      error,
    };
  }

  #readLocals(): Record<string, string> {
    return JSON.parse(this.#callInternalString('locals')) as Record<string, string>;
  }

  #readOutput(): { stdout: string; stderr: string } {
    const raw = JSON.parse(this.#callInternalString('takeOutput')) as {
      stdout: string;
      stderr: string;
      droppedStdout: number;
      droppedStderr: number;
    };
    return {
      stdout:
        raw.stdout + (raw.droppedStdout > 0 ? `${truncationMarker(raw.droppedStdout)}\n` : ''),
      stderr:
        raw.stderr + (raw.droppedStderr > 0 ? `${truncationMarker(raw.droppedStderr)}\n` : ''),
    };
  }

  /**
   * After an out-of-memory error the runtime still works if the garbage is unreachable: remove the
   * globals this block created, then probe with a small allocation. If memory stays full, the
   * engine is poisoned and the caller must create a new sandbox.
   */
  #recoverFromOutOfMemory(namesBefore: string): string {
    const before = new Set(JSON.parse(namesBefore) as string[]);
    const poisoned = (): string => {
      this.#poisonReason ??= 'memory stayed exhausted after an out-of-memory error';
      return 'note: memory is still exhausted; this sandbox is poisoned and refuses further blocks\n';
    };
    try {
      const release = this.#releaseBallast;
      if (release !== undefined) {
        const released = this.#guard(() =>
          this.#context.callFunction(release, this.#context.undefined),
        );
        if (released.error) released.error.dispose();
        else released.value.dispose();
      }
      const now = JSON.parse(this.#callInternalString('userNames')) as string[];
      const created = now.filter((name) => !before.has(name));
      this.#callInternal('deleteGlobals', [JSON.stringify(created)]).dispose();
      // Taking the ballast back doubles as the probe: it fails if memory is still full.
      this.#callInternal('holdBallast').dispose();
      return created.length > 0
        ? `note: to free memory, variables created by this block were cleared: ${created.join(', ')}\n`
        : '';
    } catch {
      return poisoned();
    }
  }

  #faultResult(reason: string, started: number): REPLResult {
    this.#poisonReason ??= reason;
    const error: BlockError = {
      name: 'RlmError',
      message: `the engine failed and this sandbox is poisoned (${reason})`,
      code: 'sandbox.poisoned',
    };
    return {
      stdout: '',
      stderr: formatBlockError(error),
      locals: {},
      executionTime: performance.now() - started,
      llmCalls: [],
      finalAnswer: null,
      error,
    };
  }

  #assertUsable(): void {
    if (this.#disposed) {
      throw new RlmError({
        code: 'sandbox.disposed',
        message: 'the sandbox was disposed',
        details: {},
      });
    }
    if (this.#poisonReason !== undefined) {
      throw new RlmError({
        code: 'sandbox.poisoned',
        message: `the sandbox is poisoned and must be recreated: ${this.#poisonReason}`,
        details: { reason: this.#poisonReason },
      });
    }
  }

  /** A JSON-safe copy of a user or scaffold variable, or `undefined` when it does not exist. */
  getVariable(name: string): JsonValue | undefined {
    this.#assertUsable();
    const context = this.#context;
    let entry: QuickJSHandle;
    try {
      entry = this.#callInternal('getVariable', [name]);
    } catch (failure) {
      throw this.#publicError(failure, `getVariable(${name})`);
    }
    try {
      const kindHandle = context.getProp(entry, 0);
      const kind = context.getNumber(kindHandle);
      kindHandle.dispose();
      if (kind === 0) return undefined;
      const payload = context.getProp(entry, 1);
      const text = context.getString(payload);
      payload.dispose();
      return kind === 1 ? text : (JSON.parse(text) as JsonValue);
    } finally {
      entry.dispose();
    }
  }

  /** Defines a global from the host; scaffold names (`context_N`, `history`, …) are pinned. */
  setVariable(name: string, value: JsonValue): void {
    this.#assertUsable();
    const context = this.#context;
    const handle = typeof value === 'string' ? newGuestString(context, value) : undefined;
    if (handle !== undefined) {
      try {
        if (context.typeof(handle) !== 'string') throw outOfMemory(this.#limits.memoryBytes);
        this.#callInternal('setVariable', [name, handle]).dispose();
      } finally {
        handle.dispose();
      }
      this.#scanner.setPayload(name, value);
      return;
    }
    // Parsing a large payload is real work: it gets a block's CPU allowance, not the scaffold's.
    const json = JSON.stringify(value);
    this.#callInternal('setJson', [name, json], this.#limits.cpuSliceMs).dispose();
    this.#scanner.setPayload(name, value);
  }

  /** User variables with type and approximate size (size 0 when measuring them took too long). */
  listVariables(): VariableInfo[] {
    this.#assertUsable();
    try {
      return JSON.parse(this.#callInternalString('listVariables', ['sizes'])) as VariableInfo[];
    } catch (failure) {
      if (!(failure instanceof ScaffoldTimeout)) throw this.#publicError(failure, 'listVariables');
      return JSON.parse(this.#callInternalString('listVariables', ['types'])) as VariableInfo[];
    }
  }

  /** Turns an internal failure of a host-initiated call into the typed error callers match on. */
  #publicError(failure: unknown, operation: string): unknown {
    if (!(failure instanceof EngineFault)) return failure;
    if (this.#poisonReason !== undefined) {
      return new RlmError({
        code: 'sandbox.poisoned',
        message: `the sandbox is poisoned and must be recreated: ${this.#poisonReason}`,
        details: { reason: this.#poisonReason },
      });
    }
    return new RlmError({
      code: 'sandbox.invalid_value',
      message: `${operation} failed: ${failure.message}`,
      details: { name: operation, reason: failure.message },
    });
  }

  /** Frees the runtime, context and module memory; idempotent. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#bridge.endBlock();
    this.#scanner.dispose();
    try {
      this.#releaseBallast?.dispose();
      this.#internals?.dispose();
      this.#context.dispose();
      this.#runtime.dispose();
    } catch {
      // A poisoned runtime may fail its leak assertions on dispose; its memory goes with the module.
    }
  }
}

function undescribedError(): BlockError {
  return {
    name: 'InternalError',
    message: 'the block failed and its error could not be read (memory is probably exhausted)',
    code: 'sandbox.out_of_memory',
  };
}

function outOfMemory(limitBytes: number): RlmError {
  return new RlmError({
    code: 'sandbox.out_of_memory',
    message: `the sandbox ran out of memory (limit ${limitBytes} bytes)`,
    details: { limitBytes },
  });
}
