import type { JsonValue, REPLResult, VariableInfo } from '@rlm/protocol';
import { RESERVED_NAMES, RlmError } from '@rlm/protocol/core';
import type {
  QuickJSContext,
  QuickJSHandle,
  QuickJSRuntime,
  QuickJSWASMModule,
} from 'quickjs-emscripten-core';
import { toBoundedJson } from '../bounded-json.js';
import { CONTEXT_HELPER_NAMES, ContextScanner } from '../context-ops/context-scanner.js';
import { type HeldScan, localHeldScan } from '../context-ops/held-scan.js';
import { isSharedText, readSharedText, type SharedText } from '../context-ops/shared-text.js';
import type { ResolvedLimits } from '../sandbox-options.js';
import { BlankEngine } from './blank-engine.js';
import { MAX_ERROR_NAME_CHARS } from './block-outcome.js';
import { EngineFault, outOfMemory, poisonedError } from './engine-faults.js';
import { type EngineParts, type EngineRunOptions, endClock, startClock } from './engine-parts.js';
import { HeapBallast } from './heap-ballast.js';
import { HostBridge, type HostCaller } from './host-bridge.js';
import { HostStrings } from './host-string-ops.js';
import { Interrupts } from './interrupts.js';
import { dropLeftoverJobs } from './leftover-jobs.js';
import type { CompiledEngine } from './load-quickjs.js';
import { newGuestStringFromText } from './new-guest-direct-string.js';
import { newGuestString, newGuestStringFromShared } from './new-guest-string.js';
import { readGuestString } from './read-guest-string.js';
import { runBlock } from './run-block.js';
import { SCAFFOLD_CALL_MS, Scaffold } from './scaffold.js';
import { heapBreak, recycleMemory } from './spare-memory.js';
import {
  WARM_UP_ANSWER,
  WARM_UP_FUNCTION,
  WARM_UP_MEMORY_BYTES,
  warmBlockPath,
} from './warm-block-path.js';
import { UNWATCHED, type WatchdogCell } from './watchdog-cell.js';

export type { EngineRunOptions } from './engine-parts.js';

/** CPU time `listVariables` may spend measuring sizes before it lists types only. */
const MEASURE_SIZES_MS = 2_000;

/** Everything needed to build an engine; plain data so it can cross a worker boundary. */
export interface EngineInit {
  /** Payloads bound to `context_0 …`; `context` aliases `context_0`. Long strings come shared. */
  contexts: (JsonValue | SharedText)[];
  meta: Record<string, JsonValue>;
  /** Host functions, reserved and restored after each block. */
  functionNames: string[];
  /** Context helpers: host functions that are ordinary, rebindable names. */
  helperNames: string[];
  limits: ResolvedLimits;
  /** Variables the host set (`setVariable`) on an engine this one replaces, in order. */
  variables?: [string, JsonValue][];
  /** The engine compiled by another thread (saves a worker compiling it again). */
  compiled?: CompiledEngine;
}

/** `heldScan`: who answers scans from held text (default: this thread, see held-scan.ts). */
type EngineOptions = { watchdog?: WatchdogCell; blank?: BlankEngine; heldScan?: HeldScan };

export interface EngineReadOptions extends EngineRunOptions {
  /** A value larger than this (as JSON) is refused with `sandbox.too_large`. */
  maxChars?: number;
}

/**
 * One QuickJS runtime + context in its own WASM module, with the scaffold installed. Runs on the
 * thread that owns it (the caller's in `inline` mode, a worker's in `worker` mode).
 *
 * Guest code runs only under a clock: a block's slices (see run-block.ts), or the clock the host's
 * own reads of guest values get. Everything the scaffold does with guest values that can reach
 * guest code (printing a completion value, describing a thrown value, naming variable types,
 * copying a variable) runs inside such a slice, with its interrupt handler, CPU budget, abort and
 * watchdog; host functions answer only while a block runs; leftover jobs are stopped before
 * anything else runs.
 */
export class QuickJsEngine {
  readonly #module: QuickJSWASMModule;
  readonly #runtime: QuickJSRuntime;
  readonly #context: QuickJSContext;
  /** The prelude's `installScaffold`, until `#install` calls (and frees) it. */
  #factory: QuickJSHandle | undefined;
  readonly #bridge: HostBridge;
  readonly #limits: ResolvedLimits;
  readonly #scanner: ContextScanner;
  /** Long strings the host set, whose searches it does itself (see host-string-ops.ts). */
  readonly #hostStrings: HostStrings;
  readonly #interrupts = new Interrupts();
  readonly #watchdog: WatchdogCell;
  /** The compiled engine this thread was handed, if any (the warm-up engine uses it too). */
  #compiled: CompiledEngine | undefined;
  #parts: EngineParts | undefined;
  readonly #ballast: HeapBallast;
  #disposed = false;
  /** Memory ran out at some point: the heap's state is not trusted enough to reuse its memory. */
  #exhausted = false;
  /** Set by a fault before the scaffold (and so `#parts`) exists. */
  #earlyPoison: string | undefined;
  /** A payload came as shared text (long): the sandbox runs on a fresh worker thread. */
  #longPayload = false;
  /** The part of the ballast's first block that lay above the allocator's break (never written). */
  #freshBallast: { start: number; end: number } | undefined;

  private constructor(
    blank: BlankEngine,
    caller: HostCaller,
    { limits, watchdog = UNWATCHED, heldScan }: EngineOptions & { limits: ResolvedLimits },
  ) {
    this.#limits = limits;
    this.#watchdog = watchdog;
    const scanner = new ContextScanner({
      timeoutMs: limits.scanTimeoutMs,
      maxChars: limits.maxOutputChars,
      heldScan: heldScan ?? localHeldScan(limits.scanTimeoutMs),
    });
    this.#scanner = scanner;
    this.#ballast = new HeapBallast(
      blank.module,
      Math.min(4 * 1024 * 1024, Math.max(256 * 1024, limits.memoryBytes / 64)),
    );
    this.#module = blank.module;
    this.#runtime = blank.runtime;
    this.#runtime.setMaxStackSize(limits.stackBytes);
    this.#runtime.setInterruptHandler(this.#interrupts.handler);
    this.#context = blank.context;
    this.#factory = blank.factory;
    this.#hostStrings = new HostStrings(this.#context, limits.nativeStringMinChars);
    // Context helpers run here, on the thread that owns the engine; everything else goes to the host.
    const helperCaller: HostCaller = async (name, args, signal) =>
      toBoundedJson(
        await scanner.run(name, args, signal),
        `the result of ${name}`,
        limits.maxHostCallChars,
      );
    this.#bridge = new HostBridge(
      this.#context,
      (name, args, signal) =>
        CONTEXT_HELPER_NAMES.includes(name)
          ? helperCaller(name, args, signal)
          : caller(name, args, signal),
      {
        values: {
          parse: (text) => this.#sc.parseResult(text),
          error: (name, message, code) => this.#sc.hostError(name, message, code),
        },
        maxMessageChars: limits.maxOutputChars,
      },
    );
  }

  /**
   * Installs the scaffold on a blank engine and injects the context payloads. `blank`, when it
   * has the memory size the limits ask for, is used (and owned from then on); otherwise it is
   * freed and a fresh one is made.
   */
  static async create(
    init: EngineInit,
    caller: HostCaller,
    { watchdog, blank, heldScan }: EngineOptions = {},
  ): Promise<QuickJsEngine> {
    const { memoryBytes } = init.limits;
    if (blank !== undefined && blank.memoryBytes !== memoryBytes) blank.dispose();
    const start =
      blank?.memoryBytes === memoryBytes
        ? blank.take()
        : (await BlankEngine.create(memoryBytes, init.compiled)).take();
    const engine = new QuickJsEngine(start, caller, { limits: init.limits, watchdog, heldScan });
    engine.#compiled = init.compiled;
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

  /**
   * With a long payload (a sandbox on a fresh worker thread), runs the block path once on a
   * throwaway engine (see warm-block-path.ts), so the sandbox's first block does not pay for its
   * cold code. If the scan worker was started with the sandbox (a context of at least
   * `PRESTART_SCAN_WORKER_MIN_CHARS`), also waits until it is up and has answered a warm-up call
   * (see `ContextScanner.ready`), so the first helper call finds it warm; a shorter context's scan
   * worker waits for the first helper call.
   */
  async helpersReady(): Promise<void> {
    const scanning = this.#scanner.ready();
    if (this.#longPayload) {
      const limits = { ...this.#limits, memoryBytes: WARM_UP_MEMORY_BYTES };
      const compiled = this.#compiled;
      await warmBlockPath(() =>
        QuickJsEngine.create(
          {
            contexts: [],
            meta: {},
            functionNames: [WARM_UP_FUNCTION],
            helperNames: [],
            limits,
            ...(compiled === undefined ? {} : { compiled }),
          },
          async () => WARM_UP_ANSWER,
        ),
      );
    }
    await scanning;
  }

  /** Why the engine can no longer run code, if it cannot. */
  get poisonReason(): string | undefined {
    return this.#parts?.poisonReason ?? this.#earlyPoison;
  }

  #install(init: EngineInit): void {
    const context = this.#context;
    const limits = this.#limits;
    const config = JSON.stringify({
      reserved: RESERVED_NAMES,
      functions: init.functionNames,
      helpers: init.helperNames,
      meta: init.meta,
      maxOutputChars: limits.maxOutputChars,
      maxAnswerChars: limits.maxAnswerChars,
      maxHostCallChars: limits.maxHostCallChars,
      maxErrorNameChars: MAX_ERROR_NAME_CHARS,
      nativeStringMinChars: limits.nativeStringMinChars,
    });
    const factory = this.#factory;
    if (factory === undefined) throw new EngineFault('the scaffold is installed only once');
    this.#factory = undefined;
    const hostCall = context.newFunction('hostCall', (name, argsJson) =>
      this.#bridge.start(context.getString(name), readGuestString(context, argsJson)),
    );
    const configHandle = context.newString(config);
    const native = this.#hostStrings.newFunction();
    const { value: result } = this.#interrupts.withAllowance(SCAFFOLD_CALL_MS * 5, () =>
      context.callFunction(factory, context.undefined, hostCall, configHandle, native),
    );
    factory.dispose();
    hostCall.dispose();
    native.dispose();
    configHandle.dispose();
    const internals = context.unwrapResult(result);
    const breakBefore = heapBreak(this.#module);
    if (!this.#ballast.hold()) {
      internals.dispose();
      throw new EngineFault('the memory limit leaves no room for the scaffold');
    }
    const held = this.#ballast.firstHold();
    if (breakBefore !== undefined && held !== undefined && held.end > breakBefore) {
      this.#freshBallast = { start: Math.max(held.start, breakBefore), end: held.end };
    }
    const guard = <T>(work: () => T): T => this.#guard(work);
    this.#parts = {
      runtime: this.#runtime,
      context,
      bridge: this.#bridge,
      scaffold: new Scaffold({
        context,
        internals,
        ballast: this.#ballast,
        interrupts: this.#interrupts,
        guard,
        memoryBytes: limits.memoryBytes,
      }),
      interrupts: this.#interrupts,
      watchdog: this.#watchdog,
      limits,
      guard,
      poisonReason: undefined,
      resetReason: undefined,
    };
    this.#longPayload = init.contexts.some(isSharedText);
    // A context long enough to start the scan worker now (see `ContextScanner.prestart`) starts it
    // before the payloads are copied into WASM memory, so the thread's start overlaps that copy.
    if (init.helperNames.length > 0) {
      init.contexts.forEach((payload, index) => {
        if (isSharedText(payload)) this.#scanner.setPayload(`context_${index}`, payload);
      });
      this.#scanner.prestart();
    }
    init.contexts.forEach((payload, index) => {
      if (isSharedText(payload)) this.#setSharedText(`context_${index}`, payload);
      else if (typeof payload === 'string') this.#setInitialString(`context_${index}`, payload);
      else this.setVariable(`context_${index}`, payload);
    });
    if (init.contexts.length > 0) this.#sc.call('alias', ['context', 'context_0']).dispose();
    for (const [name, value] of init.variables ?? []) this.setVariable(name, value);
  }

  get #p(): EngineParts {
    if (this.#parts === undefined) throw new EngineFault('the scaffold is not installed');
    return this.#parts;
  }

  /** The installed scaffold (present from `create()` on). */
  get #sc(): Scaffold {
    return this.#p.scaffold;
  }

  /** Runs engine work; any non-QuickJS exception means the runtime may be corrupt. */
  #guard<T>(work: () => T): T {
    try {
      return work();
    } catch (error) {
      if (error instanceof RlmError || error instanceof EngineFault) throw error;
      const reason = `engine fault: ${error instanceof Error ? error.name : 'unknown'}: ${
        error instanceof Error ? error.message : String(error)
      }`;
      if (this.#parts === undefined) this.#earlyPoison = reason;
      else this.#parts.poisonReason = reason;
      throw new EngineFault(reason);
    }
  }

  /** Runs one block (see run-block.ts). Guest errors and limits go into the result. */
  async execute(code: string, options: EngineRunOptions = {}): Promise<REPLResult> {
    this.#assertUsable();
    const result = await runBlock(this.#p, code, options);
    if (result.error?.code === 'sandbox.out_of_memory') this.#exhausted = true;
    return result;
  }

  #assertUsable(): void {
    if (this.#disposed) {
      throw new RlmError({
        code: 'sandbox.disposed',
        message: 'the sandbox was disposed',
        details: {},
      });
    }
    const poisoned = this.poisonReason;
    if (poisoned !== undefined) throw poisonedError(poisoned);
  }

  /**
   * Runs a host read of guest values under a clock of its own (the block limits, `signal`, the
   * watchdog), with host functions refusing calls, then stops any job it left behind.
   *
   * @throws RlmError `sandbox.timeout` / `sandbox.aborted` when that clock stopped the read
   */
  #read<T>(
    operation: string,
    { options, limits = this.#limits }: { options: EngineRunOptions; limits?: ResolvedLimits },
    work: (within: <R>(slice: () => R) => R) => T,
  ): T {
    this.#assertUsable();
    const parts = this.#p;
    const clock = startClock(parts, options, limits);
    try {
      return work(clock.slice);
    } catch (failure) {
      const limit = failure instanceof EngineFault ? clock.stopped() : undefined;
      throw limit ?? this.#publicError(failure, operation);
    } finally {
      endClock(parts);
      if (!dropLeftoverJobs(parts)) parts.resetReason = 'jobs';
    }
  }

  /**
   * A JSON-safe copy of a user or scaffold variable, or `undefined` when it does not exist.
   *
   * @throws RlmError `sandbox.too_large` when it is larger than `maxChars` as JSON
   */
  getVariable(name: string, options: EngineReadOptions = {}): JsonValue | undefined {
    const maxChars = options.maxChars ?? Number.MAX_SAFE_INTEGER;
    const read = this.#read(`getVariable(${name})`, { options }, (within) =>
      this.#sc.readVariable(name, maxChars, within),
    );
    if (read.kind === 'missing') return undefined;
    if (read.kind === 'value') return read.value;
    throw new RlmError({
      code: 'sandbox.too_large',
      message: `the variable ${name} takes ${read.size > maxChars ? `more than ${maxChars}` : read.size} characters, more than the ${maxChars} asked for`,
      details: { what: `variable ${name}`, size: read.size, limit: maxChars },
    });
  }

  /** Defines a global from the host; scaffold names (`context_N`, `history`, …) are pinned. */
  setVariable(name: string, value: JsonValue): void {
    this.#assertUsable();
    const handle = typeof value === 'string' ? newGuestString(this.#context, value) : undefined;
    if (handle !== undefined) {
      this.#setString(name, handle);
      this.#scanner.setPayload(name, value);
      return;
    }
    // Parsing a large payload is real work: it gets a block's CPU allowance, not the scaffold's.
    const json = JSON.stringify(value);
    this.#sc.call('setJson', [name, json], { allowanceMs: this.#limits.cpuSliceMs }).dispose();
    if (typeof value === 'string') {
      // A string JSON had to carry (a NUL, a lone surrogate): the global setJson just defined.
      const handle = this.#context.getProp(this.#context.global, name);
      this.#hostStrings.hold(handle, name);
      handle.dispose();
    }
    this.#scanner.setPayload(name, value);
  }

  /** Binds a context payload that came as shared UTF-8 bytes, without decoding it on this thread. */
  #setSharedText(name: string, shared: SharedText): void {
    const handle = newGuestStringFromShared(this.#context, shared);
    if (handle === undefined) {
      this.setVariable(name, readSharedText(shared));
      return;
    }
    this.#setString(name, handle);
    this.#scanner.setPayload(name, shared);
  }

  /**
   * Binds a string payload before any guest code runs: written straight into the guest string
   * (any text, NUL and lone surrogates too), else the way `setVariable` binds one.
   */
  #setInitialString(name: string, text: string): void {
    const handle = newGuestStringFromText(this.#context, text);
    if (handle === undefined) {
      this.setVariable(name, text);
      return;
    }
    this.#setString(name, handle);
    this.#scanner.setPayload(name, text);
  }

  /** Binds a guest string handle to `name`, then frees the handle. */
  #setString(name: string, handle: QuickJSHandle): void {
    try {
      if (this.#context.typeof(handle) !== 'string') {
        this.#exhausted = true;
        throw outOfMemory(this.#limits.memoryBytes);
      }
      this.#sc.call('setVariable', [name, handle]).dispose();
      this.#hostStrings.hold(handle, name);
    } finally {
      handle.dispose();
    }
  }

  /** User variables with type and approximate size (size 0 when measuring them took too long). */
  listVariables(options: EngineRunOptions = {}): VariableInfo[] {
    const cpuSliceMs = Math.min(this.#limits.cpuSliceMs, MEASURE_SIZES_MS);
    try {
      const listed = this.#read(
        'listVariables',
        { options, limits: { ...this.#limits, cpuSliceMs } },
        (within) => this.#sc.callString('listVariables', [true], { within }),
      );
      return JSON.parse(listed) as VariableInfo[];
    } catch (failure) {
      if (!RlmError.is(failure, 'sandbox.timeout')) throw failure;
      return JSON.parse(this.#sc.callString('listVariables', [false])) as VariableInfo[];
    }
  }

  /** Turns an internal failure of a host-initiated call into the typed error callers match on. */
  #publicError(failure: unknown, operation: string): unknown {
    if (!(failure instanceof EngineFault)) return failure;
    const poisoned = this.poisonReason;
    if (poisoned !== undefined) return poisonedError(poisoned);
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
    this.#bridge.close();
    this.#scanner.dispose();
    this.#factory?.dispose();
    this.#parts?.scaffold.dispose();
    this.#hostStrings.dispose();
    this.#context.dispose();
    this.#runtime.dispose();
  }

  /** Frees the runtime, context and module memory; idempotent. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#bridge.close();
    this.#scanner.dispose();
    // The engine owns its WASM instance, which nothing calls into again: QuickJS's objects are
    // not freed one by one (freeing the runtime walks every object, a fifth of a warm create +
    // dispose), the instance goes as a whole. A faulted runtime may be corrupt and an exhausted
    // one is not trusted: their memory goes with the module; a healthy one's, wiped below its
    // break, serves the next engine on this thread (see spare-memory.ts).
    // The part of the ballast's block that lay above the break when it was taken was never
    // written while it was held: unless it was let go since, the wipe need not read its pages
    // (most of what it would read).
    if (this.poisonReason !== undefined || this.#exhausted) return;
    const untouched = this.#ballast.firstHold() === undefined ? undefined : this.#freshBallast;
    recycleMemory(this.#module, untouched);
  }
}
