import type { JsonValue } from '@rlm/protocol';
import { truncationMarker } from '@rlm/protocol/core';
import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten-core';
import type { BlockEnd, FinishedBlock, ScaffoldInternals } from '../guest/install-scaffold.js';
import type { GuestErrorInfo } from './block-outcome.js';
import { EngineFault, outOfMemory, ScaffoldTimeout } from './engine-faults.js';
import { GlobalKeysWatch } from './global-keys-watch.js';
import type { HeapBallast } from './heap-ballast.js';
import type { Interrupts } from './interrupts.js';
import { newGuestString } from './new-guest-string.js';
import { TextCall, TextCallFailed } from './text-call.js';

/** CPU time allowed for the scaffold's own trusted work (no guest code runs in it). */
export const SCAFFOLD_CALL_MS = 2_000;

/** A function of the guest prelude's internals (see src/guest/install-scaffold.ts). */
export type ScaffoldFunction = keyof ScaffoldInternals;

type Argument = string | number | boolean | QuickJSHandle;

/**
 * How a scaffold call is timed: `trusted` gets its own short allowance, `{ allowanceMs }` a
 * longer one (both for calls that run no guest code); `within` runs it inside a slice the caller
 * opens (a block's or a read's), so guest code it reaches shares that slice's budget, abort and
 * watchdog.
 */
export type CallTiming = 'trusted' | { allowanceMs: number } | { within: <T>(work: () => T) => T };

interface ScaffoldParts {
  context: QuickJSContext;
  /** Heap held back for the scaffold's own work after an out-of-memory error. */
  ballast: HeapBallast;
  internals: QuickJSHandle;
  interrupts: Interrupts;
  /** Runs engine work, poisoning the engine on a non-QuickJS exception. */
  guard: <T>(work: () => T) => T;
  memoryBytes: number;
}

/** Runs a call in whatever slice (or drain) is already running, without changing its timing. */
const INHERIT: CallTiming = { within: (work) => work() };

/** The block's output and answer, as the host reads them when a block ends. */
export interface EndedBlock {
  stdout: string;
  stderr: string;
  finalAnswer: string | null;
  unrestored: string[];
}

function endedBlock(raw: BlockEnd): EndedBlock {
  const marker = (dropped: number): string => (dropped > 0 ? `${truncationMarker(dropped)}\n` : '');
  return {
    stdout: raw.stdout + marker(raw.droppedStdout),
    stderr: raw.stderr + marker(raw.droppedStderr),
    finalAnswer: raw.finalAnswer,
    unrestored: raw.unrestored,
  };
}

/** A variable as `readVariable` returns it. */
export type ReadVariable =
  | { kind: 'missing' }
  | { kind: 'value'; value: JsonValue }
  | { kind: 'too_large'; size: number };

/**
 * Internals that leave the guest's output as it was: the host may call them between a block that
 * `finishBlock` ended and the next block, whose output that call began, without closing it.
 */
const KEEPS_OUTPUT: ReadonlySet<ScaffoldFunction> = new Set([
  'finishBlock',
  'setVariable',
  'setJson',
  'alias',
]);

/** `FinishedBlock.listed`: the guest reused its last listing of the globals. */
const REUSED = -2;
/** `FinishedBlock.listed`: guest code ran before the guest listed the globals. */
const UNCERTAIN = -1;

/**
 * Internals that list the globals afresh: the listing then no longer matches the keys the host
 * last saw with it (see `GlobalKeysWatch`).
 */
const RELISTS: ReadonlySet<ScaffoldFunction> = new Set([
  'locals',
  'listVariables',
  'reclaimGlobals',
]);

/** The host's side of the guest scaffold: calls into the prelude's internals and reads results. */
export class Scaffold {
  readonly #parts: ScaffoldParts;
  /** Handles of the internals called so far: fetching one per call would cost a crossing. */
  readonly #functions = new Map<ScaffoldFunction, QuickJSHandle>();
  /**
   * Whether the next block's output is already open: `finishBlock` began that block, and no
   * call since could have closed it (see `KEEPS_OUTPUT`). `beginBlock` then costs no crossing.
   */
  #nextBlockBegun = false;
  /** The end-of-block call, without the library's per-call allocations. */
  readonly #finishCall: TextCall;
  /** Whether the globals' keys changed since the guest last listed them (saves listing them). */
  readonly #keys: GlobalKeysWatch;

  constructor(parts: ScaffoldParts) {
    this.#parts = parts;
    this.#finishCall = new TextCall(parts.context);
    this.#keys = new GlobalKeysWatch(parts.context);
  }

  /**
   * Calls an internal; strings become guest strings.
   *
   * @throws ScaffoldTimeout when a trusted call's allowance ran out, EngineFault when the call
   *   failed (for a `within` call, the caller's clock tells whether a limit stopped it)
   */
  call(
    name: ScaffoldFunction,
    args: Argument[] = [],
    timing: CallTiming = 'trusted',
  ): QuickJSHandle {
    const { context, interrupts, guard } = this.#parts;
    if (!KEEPS_OUTPUT.has(name)) this.#nextBlockBegun = false;
    if (RELISTS.has(name)) this.#keys.forget();
    const owned: QuickJSHandle[] = [];
    try {
      const handles = args.map((arg) => this.#toHandle(arg, owned));
      const fn = this.#function(name);
      const invoke = () => guard(() => context.callFunction(fn, context.undefined, handles));
      let result: ReturnType<typeof invoke>;
      let timedOut = false;
      if (timing === 'trusted' || 'allowanceMs' in timing) {
        const allowanceMs = timing === 'trusted' ? SCAFFOLD_CALL_MS : timing.allowanceMs;
        ({ value: result, timedOut } = interrupts.withAllowance(allowanceMs, invoke));
      } else {
        result = timing.within(invoke);
      }
      if (result.error) {
        result.error.dispose();
        if (timedOut) throw new ScaffoldTimeout(`the scaffold's ${name} ran out of time`);
        throw new EngineFault(`the scaffold's ${name} failed`);
      }
      return result.value;
    } finally {
      for (const handle of owned) handle.dispose();
    }
  }

  #function(name: ScaffoldFunction): QuickJSHandle {
    let fn = this.#functions.get(name);
    if (fn === undefined) {
      fn = this.#parts.context.getProp(this.#parts.internals, name);
      this.#functions.set(name, fn);
    }
    return fn;
  }

  #toHandle(arg: Argument, owned: QuickJSHandle[]): QuickJSHandle {
    const { context, memoryBytes } = this.#parts;
    if (typeof arg === 'object') return arg;
    // The booleans are static handles of the context: never disposed.
    if (typeof arg === 'boolean') return arg ? context.true : context.false;
    const handle =
      typeof arg === 'number'
        ? context.newNumber(arg)
        : (newGuestString(context, arg) ?? context.newString(arg));
    owned.push(handle);
    if (typeof arg === 'string' && context.typeof(handle) !== 'string') {
      throw outOfMemory(memoryBytes);
    }
    return handle;
  }

  /** Calls an internal that returns a string (usually JSON). */
  callString(
    name: ScaffoldFunction,
    args: Argument[] = [],
    timing: CallTiming = 'trusted',
  ): string {
    const handle = this.call(name, args, timing);
    try {
      return this.#parts.context.getString(handle);
    } finally {
      handle.dispose();
    }
  }

  /** Starts collecting a block's output (already done when `finishBlock` ended the last one). */
  beginBlock(): void {
    if (this.#nextBlockBegun) {
      this.#nextBlockBegun = false;
      return;
    }
    this.call('beginBlock').dispose();
  }

  /**
   * Closes the output `finishBlock` left open for the next block, before guest code runs outside
   * a block (the jobs a block left behind, stopped as they start): whatever it printed would
   * otherwise reach the next block's output.
   */
  closeOutput(): void {
    if (this.#nextBlockBegun) this.call('closeOutput').dispose();
  }

  /** Prints the block's completion value, inside the block's slice. */
  printCompletion(holder: QuickJSHandle, within: <T>(work: () => T) => T): void {
    this.call('formatCompletion', [holder], { within }).dispose();
  }

  /** Lets go of the memory held back for the scaffold's own work (needs no allocation). */
  releaseBallast(): void {
    this.#parts.ballast.release();
  }

  /** Takes the ballast back; fails (EngineFault) when memory is still exhausted. */
  holdBallast(): void {
    if (!this.#parts.ballast.hold()) throw new EngineFault('memory is still exhausted');
  }

  /** The thrown value's name, message and stack (already cut), read inside the block's slice. */
  describe(error: QuickJSHandle, within: <T>(work: () => T) => T): GuestErrorInfo {
    const raw = JSON.parse(this.callString('describeError', [error], { within })) as {
      name: { text: string; dropped: number };
      message: { text: string; dropped: number };
      stack: { text: string; dropped: number };
      lineNumber: number | null;
      code: string | null;
    };
    const marked = (cut: { text: string; dropped: number }) =>
      cut.dropped > 0 ? cut.text + truncationMarker(cut.dropped) : cut.text;
    return {
      name: marked(raw.name),
      message: marked(raw.message),
      stack: raw.stack.text,
      lineNumber: raw.lineNumber,
      code: raw.code,
    };
  }

  /** `{ name: type }` of the user variables; `within` a slice, or `basic` (no guest code). */
  locals(timing: 'trusted' | { within: <T>(work: () => T) => T }): Record<string, string> {
    const basic = timing === 'trusted';
    return JSON.parse(this.callString('locals', [basic], timing)) as Record<string, string>;
  }

  /** Ends the block: restores scaffold names, takes the answer and the output (with markers). */
  endBlock(): EndedBlock {
    return endedBlock(JSON.parse(this.callString('endBlock')) as BlockEnd);
  }

  /**
   * Ends a block that completed in one call, inside the caller's slice: prints its completion
   * value, names its variables' types and does what `endBlock` does.
   *
   * @throws EngineFault when it was stopped (or failed) before it took the output; nothing is
   *   taken then, and `printCompletion`, `locals` and `endBlock` finish the block instead
   */
  finishBlock(
    holder: QuickJSHandle,
    within: <T>(work: () => T) => T,
  ): { locals: Record<string, string>; ended: EndedBlock } {
    const { context, guard } = this.#parts;
    const fn = this.#function('finishBlock');
    const keys = this.#keys;
    const { keysUnchanged, namesSettled } = keys.beforeFinish();
    const known = keysUnchanged ? context.true : context.false;
    const settled = namesSettled ? context.true : context.false;
    const text = within(() =>
      guard(() => {
        try {
          return this.#finishCall.call(fn, holder, known, settled);
        } catch (failure) {
          if (failure instanceof TextCallFailed) {
            throw new EngineFault("the scaffold's finishBlock failed");
          }
          throw failure;
        }
      }),
    );
    const raw = JSON.parse(text) as FinishedBlock;
    keys.afterFinish(
      raw.listed === REUSED ? 'reused' : raw.listed === UNCERTAIN ? 'uncertain' : raw.listed,
      raw.end.unrestored.length === 0,
    );
    this.#nextBlockBegun = true;
    return { locals: raw.locals, ended: endedBlock(raw.end) };
  }

  /** A JSON-safe copy of a global (read inside the caller's slice). */
  readVariable(name: string, maxChars: number, within: <T>(work: () => T) => T): ReadVariable {
    const { context } = this.#parts;
    const entry = this.call('readVariable', [name, maxChars], { within });
    try {
      const kindHandle = context.getProp(entry, 0);
      const kind = context.getNumber(kindHandle);
      kindHandle.dispose();
      if (kind === 0) return { kind: 'missing' };
      const payload = context.getProp(entry, 1);
      try {
        if (kind === 3) return { kind: 'too_large', size: context.getNumber(payload) };
        const text = context.getString(payload);
        return { kind: 'value', value: kind === 1 ? text : (JSON.parse(text) as JsonValue) };
      } finally {
        payload.dispose();
      }
    } finally {
      entry.dispose();
    }
  }

  /**
   * The guest value of a host result; called inside the block's slice, whose timing it keeps. A
   * string result (the usual case: a model's reply) becomes a guest string directly.
   */
  parseResult(text: string): QuickJSHandle {
    if (text.startsWith('"')) {
      const { context, memoryBytes } = this.#parts;
      const direct = newGuestString(context, JSON.parse(text) as string);
      if (direct !== undefined && context.typeof(direct) === 'string') return direct;
      // A handle that is not a string: memory is short (see newGuestString).
      if (direct !== undefined) {
        direct.dispose();
        throw outOfMemory(memoryBytes);
      }
    }
    return this.call('parseJson', [text], INHERIT);
  }

  /** A guest error for a failed host call (with a code the guest can trust); keeps the timing. */
  hostError(name: string, message: string, code: string | undefined): QuickJSHandle {
    return this.call('hostError', [name, message, code ?? ''], INHERIT);
  }

  /**
   * Frees memory after an out-of-memory error: releases the ballast (so the scaffold has room to
   * work), empties the globals created since the last block ended (the guest keeps those names),
   * then takes the ballast back, which doubles as the probe. Returns the names it emptied.
   *
   * @throws EngineFault (or an engine error) when memory stays exhausted
   */
  reclaimMemory(): string[] {
    this.releaseBallast();
    const created = JSON.parse(this.callString('reclaimGlobals')) as string[];
    this.holdBallast();
    return created;
  }

  dispose(): void {
    this.#finishCall.dispose();
    for (const fn of this.#functions.values()) fn.dispose();
    this.#functions.clear();
    this.#parts.internals.dispose();
  }
}
