import type { BlockError, JsonValue, REPLResult, VariableInfo } from '@rlm/protocol';
import { RESERVED_NAMES, RlmError } from '@rlm/protocol/core';
import type {
  QuickJSContext,
  QuickJSHandle,
  QuickJSRuntime,
  QuickJSWASMModule,
} from 'quickjs-emscripten-core';
import { CONTEXT_HELPER_NAMES, ContextScanner } from '../context-ops/context-scanner.js';
import type { ResolvedLimits } from '../sandbox-options.js';
import { type BlockClock, startBlockClock } from './block-clock.js';
import {
  formatBlockError,
  guestBlockError,
  limitBlockError,
  limitErrors,
} from './block-outcome.js';
import {
  EngineFault,
  outOfMemory,
  poisonedError,
  ScaffoldTimeout,
  undescribedError,
} from './engine-faults.js';
import { GUEST_PRELUDE } from './guest-prelude.js';
import { HostBridge, type HostCaller } from './host-bridge.js';
import { Interrupts } from './interrupts.js';
import { type CompiledEngine, loadQuickJs } from './load-quickjs.js';
import { newGuestString } from './new-guest-string.js';
import { rewriteBlock } from './rewrite-block.js';
import { SCAFFOLD_CALL_MS, Scaffold } from './scaffold.js';

/** JS_EVAL_FLAG_ASYNC: top-level await, completion value as a promise of `{ value }`. */
const EVAL_FLAG_ASYNC = 1 << 7;
const BLOCK_FILE = 'block.js';
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

type Settled =
  | { kind: 'value'; holder: QuickJSHandle }
  | { kind: 'thrown'; error: QuickJSHandle }
  | { kind: 'limit'; error: RlmError }
  | { kind: 'fault'; reason: string };

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
  readonly #interrupts = new Interrupts();
  #scaffold: Scaffold | undefined;
  #poisonReason: string | undefined;
  #disposed = false;
  /** Host calls the running block left pending, counted when it ends. */
  #unawaited: Record<string, number> = {};

  private constructor(module: QuickJSWASMModule, caller: HostCaller, limits: ResolvedLimits) {
    this.#limits = limits;
    const scanner = new ContextScanner({
      timeoutMs: limits.scanTimeoutMs,
      maxChars: limits.maxOutputChars,
    });
    this.#scanner = scanner;
    this.#runtime = module.newRuntime();
    this.#runtime.setMaxStackSize(limits.stackBytes);
    this.#runtime.setInterruptHandler(this.#interrupts.handler);
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
      if (RlmError.is(error)) throw error;
      // Never pass on a QuickJS unwrap error: it holds the whole emscripten module.
      const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      throw poisonedError(`the engine failed to start (${reason})`);
    }
    return engine;
  }

  /** Why the engine can no longer run code, if it cannot. */
  get poisonReason(): string | undefined {
    return this.#poisonReason;
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
    const factory = context.unwrapResult(
      context.evalCode(GUEST_PRELUDE, 'prelude.js', { type: 'global' }),
    );
    const hostCall = context.newFunction('hostCall', (name, argsJson) =>
      this.#bridge.start(context.getString(name), context.getString(argsJson)),
    );
    const configHandle = context.newString(config);
    const { value: result } = this.#interrupts.withAllowance(SCAFFOLD_CALL_MS * 5, () =>
      context.callFunction(factory, context.undefined, hostCall, configHandle),
    );
    factory.dispose();
    hostCall.dispose();
    configHandle.dispose();
    this.#scaffold = new Scaffold({
      context,
      internals: context.unwrapResult(result),
      interrupts: this.#interrupts,
      guard: (work) => this.#guard(work),
      memoryBytes: this.#limits.memoryBytes,
    });
    init.contexts.forEach((payload, index) => {
      this.setVariable(`context_${index}`, payload);
    });
    if (init.contexts.length > 0) this.#sc.call('alias', ['context', 'context_0']).dispose();
  }

  /** The installed scaffold (present from `create()` on). */
  get #sc(): Scaffold {
    if (this.#scaffold === undefined) throw new EngineFault('the scaffold is not installed');
    return this.#scaffold;
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

  /** Runs one block. Guest errors and limits go into the result; only a dead engine throws. */
  async execute(code: string, options: EngineExecuteOptions = {}): Promise<REPLResult> {
    this.#assertUsable();
    const started = performance.now();
    const namesBefore = this.#sc.callString('userNames');
    let settled: Settled;
    try {
      settled = await this.#run(code, options);
    } catch (error) {
      if (!(error instanceof EngineFault)) throw error;
      settled = { kind: 'fault', reason: error.message };
    } finally {
      this.#unawaited = this.#bridge.endBlock();
      this.#interrupts.check = undefined;
      this.#interrupts.deadline = Number.POSITIVE_INFINITY;
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
    const clock = startBlockClock({
      limits: this.#limits,
      interrupts: this.#interrupts,
      guard: (work) => this.#guard(work),
      signal: options.signal ?? new AbortController().signal,
      interrupted: options.interrupted,
    });
    const source = rewriteBlock(code) ?? code;
    const evaluated = clock.slice(() =>
      this.#context.evalCode(source, BLOCK_FILE, EVAL_FLAG_ASYNC),
    );
    const limit = clock.stopped();
    if (evaluated.error) {
      if (limit === undefined) return { kind: 'thrown', error: evaluated.error };
      evaluated.error.dispose();
      return { kind: 'limit', error: limit };
    }
    try {
      return limit ? { kind: 'limit', error: limit } : await this.#settle(evaluated.value, clock);
    } finally {
      evaluated.value.dispose();
    }
  }

  /** Pumps jobs and awaits host calls until the block's promise settles or a limit stops it. */
  async #settle(promise: QuickJSHandle, clock: BlockClock): Promise<Settled> {
    for (;;) {
      clock.slice(() => this.#pumpJobs());
      const limit = clock.stopped();
      if (limit) return { kind: 'limit', error: limit };
      const settled = this.#settledState(promise);
      if (settled) return settled;
      if (this.#bridge.inFlight === 0) return { kind: 'limit', error: limitErrors.deadlock() };
      const outcome = await this.#bridge.waitForSettle(clock.wallDeadline, clock.signal);
      if (outcome === 'deadline') {
        return { kind: 'limit', error: limitErrors.wall(this.#limits.blockTimeoutMs) };
      }
      if (outcome === 'aborted') return { kind: 'limit', error: limitErrors.aborted() };
    }
  }

  #settledState(promise: QuickJSHandle): Settled | undefined {
    const state = this.#context.getPromiseState(promise);
    if (state.type === 'fulfilled') {
      return { kind: 'value', holder: state.notAPromise ? promise.dup() : state.value };
    }
    if (state.type === 'rejected') return { kind: 'thrown', error: state.error };
    return undefined;
  }

  /** Runs queued promise jobs until none is left or the interrupt handler stops one. */
  #pumpJobs(): void {
    while (this.#runtime.hasPendingJob()) {
      const result = this.#runtime.executePendingJobs();
      if (result.error) {
        result.error.dispose();
        if (this.#interrupts.reason !== undefined) return;
      }
    }
  }

  /** Interrupts every job left over from a stopped block, so none of it runs in the next one. */
  #drainLeftoverJobs(): void {
    this.#interrupts.force = true;
    try {
      for (let round = 0; round < MAX_DRAIN_ROUNDS && this.#runtime.hasPendingJob(); round++) {
        const result = this.#guard(() => this.#runtime.executePendingJobs(1));
        if (result.error) result.error.dispose();
      }
    } finally {
      this.#interrupts.force = false;
      this.#interrupts.reason = undefined;
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
      const info = this.#sc.describe(settled.error);
      settled.error.dispose();
      // The scaffold fails to describe an error almost only when memory is exhausted.
      error = info === undefined ? undescribedError() : guestBlockError(info);
      if (error.code === 'sandbox.out_of_memory') note = this.#recoverFromOutOfMemory(namesBefore);
    }
    try {
      if (settled.kind === 'value') note += this.#sc.printCompletion(settled.holder);
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

  #collect({
    error,
    note,
    started,
  }: {
    error: BlockError | null;
    note: string;
    started: number;
  }): REPLResult {
    const unrestored = JSON.parse(this.#sc.callString('restore')) as string[];
    const restoreNote =
      unrestored.length > 0
        ? `note: could not restore the scaffold name(s) ${unrestored.join(', ')}\n`
        : '';
    const finalAnswer = this.#sc.takeFinal();
    const locals = JSON.parse(this.#sc.callString('locals')) as Record<string, string>;
    const output = this.#sc.takeOutput();
    return {
      stdout: output.stdout,
      stderr: output.stderr + (error ? formatBlockError(error) : '') + note + restoreNote,
      locals,
      executionTime: performance.now() - started,
      llmCalls: [],
      finalAnswer,
      error,
      unawaitedCalls: this.#unawaited,
    };
  }

  /**
   * After an out-of-memory error the runtime still works if the garbage is unreachable: remove the
   * globals this block created, then probe with a small allocation. If memory stays full, the
   * engine is poisoned and the caller must create a new sandbox.
   */
  #recoverFromOutOfMemory(namesBefore: string): string {
    try {
      const cleared = this.#sc.reclaimMemory(namesBefore);
      return cleared.length > 0
        ? `note: to free memory, variables created by this block were cleared: ${cleared.join(', ')}\n`
        : '';
    } catch {
      this.#poisonReason ??= 'memory stayed exhausted after an out-of-memory error';
      return 'note: memory is still exhausted; this sandbox is poisoned and refuses further blocks\n';
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
      unawaitedCalls: this.#unawaited,
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
    if (this.#poisonReason !== undefined) throw poisonedError(this.#poisonReason);
  }

  /** A JSON-safe copy of a user or scaffold variable, or `undefined` when it does not exist. */
  getVariable(name: string): JsonValue | undefined {
    this.#assertUsable();
    try {
      return this.#sc.readVariable(name);
    } catch (failure) {
      throw this.#publicError(failure, `getVariable(${name})`);
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
        this.#sc.call('setVariable', [name, handle]).dispose();
      } finally {
        handle.dispose();
      }
      this.#scanner.setPayload(name, value);
      return;
    }
    // Parsing a large payload is real work: it gets a block's CPU allowance, not the scaffold's.
    const json = JSON.stringify(value);
    this.#sc.call('setJson', [name, json], this.#limits.cpuSliceMs).dispose();
    this.#scanner.setPayload(name, value);
  }

  /** User variables with type and approximate size (size 0 when measuring them took too long). */
  listVariables(): VariableInfo[] {
    this.#assertUsable();
    try {
      return JSON.parse(this.#sc.callString('listVariables', ['sizes'])) as VariableInfo[];
    } catch (failure) {
      if (!(failure instanceof ScaffoldTimeout)) throw this.#publicError(failure, 'listVariables');
      return JSON.parse(this.#sc.callString('listVariables', ['types'])) as VariableInfo[];
    }
  }

  /** Turns an internal failure of a host-initiated call into the typed error callers match on. */
  #publicError(failure: unknown, operation: string): unknown {
    if (!(failure instanceof EngineFault)) return failure;
    if (this.#poisonReason !== undefined) return poisonedError(this.#poisonReason);
    return new RlmError({
      code: 'sandbox.invalid_value',
      message: `${operation} failed: ${failure.message}`,
      details: { name: operation, reason: failure.message },
    });
  }

  /**
   * Frees the runtime and context, throwing if QuickJS finds live objects the host still holds
   * handles to (a leak). `dispose()` is the forgiving version for normal use.
   */
  disposeStrictly(): void {
    this.#disposed = true;
    this.#bridge.endBlock();
    this.#scanner.dispose();
    this.#scaffold?.dispose();
    this.#context.dispose();
    this.#runtime.dispose();
  }

  /** Frees the runtime, context and module memory; idempotent. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#bridge.endBlock();
    this.#scanner.dispose();
    // A faulted runtime may be corrupt: freeing it can trip QuickJS's leak assertion (which aborts
    // the WASM module). Its memory is released with the module when nothing references it.
    if (this.#poisonReason !== undefined) return;
    try {
      this.#scaffold?.dispose();
      this.#context.dispose();
      this.#runtime.dispose();
    } catch {
      // A poisoned runtime may fail its leak assertions on dispose; its memory goes with the module.
    }
  }
}
