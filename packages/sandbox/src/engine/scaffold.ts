import type { JsonValue } from '@rlm/protocol';
import { truncationMarker } from '@rlm/protocol/core';
import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten-core';
import type { GuestErrorInfo } from './block-outcome.js';
import { EngineFault, outOfMemory, ScaffoldTimeout } from './engine-faults.js';
import type { Interrupts } from './interrupts.js';
import { newGuestString } from './new-guest-string.js';

/** CPU time allowed for the scaffold's own work (listing variables, formatting) after a block. */
export const SCAFFOLD_CALL_MS = 2_000;

/** The internals the guest prelude returns (see guest-prelude.ts). */
export type ScaffoldFunction =
  | 'takeOutput'
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

type Argument = string | QuickJSHandle;

interface ScaffoldParts {
  context: QuickJSContext;
  internals: QuickJSHandle;
  interrupts: Interrupts;
  /** Runs engine work, poisoning the engine on a non-QuickJS exception. */
  guard: <T>(work: () => T) => T;
  memoryBytes: number;
}

/**
 * The host's side of the guest scaffold: calls into the prelude's internals, each with a short
 * CPU allowance of its own, and reads their results.
 */
export class Scaffold {
  readonly #parts: ScaffoldParts;
  /** Fetched up front: calling it needs no allocation, which matters when the heap is full. */
  readonly #releaseBallast: QuickJSHandle;

  constructor(parts: ScaffoldParts) {
    this.#parts = parts;
    this.#releaseBallast = parts.context.getProp(parts.internals, 'releaseBallast');
  }

  /**
   * Calls an internal; strings become guest strings.
   *
   * @throws ScaffoldTimeout when the allowance ran out, EngineFault when the call failed
   */
  call(
    name: ScaffoldFunction,
    args: Argument[] = [],
    allowanceMs = SCAFFOLD_CALL_MS,
  ): QuickJSHandle {
    const { context, internals, interrupts, guard, memoryBytes } = this.#parts;
    const owned: QuickJSHandle[] = [];
    try {
      const handles = args.map((arg) => {
        if (typeof arg !== 'string') return arg;
        const handle = newGuestString(context, arg) ?? context.newString(arg);
        owned.push(handle);
        if (context.typeof(handle) !== 'string') throw outOfMemory(memoryBytes);
        return handle;
      });
      const fn = context.getProp(internals, name);
      const { value: result, timedOut } = interrupts.withAllowance(allowanceMs, () =>
        guard(() => context.callFunction(fn, context.undefined, handles)),
      );
      fn.dispose();
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

  /** Calls an internal that returns a string (usually JSON). */
  callString(name: ScaffoldFunction, args: Argument[] = []): string {
    const handle = this.call(name, args);
    try {
      return this.#parts.context.getString(handle);
    } finally {
      handle.dispose();
    }
  }

  /** The guest error's name, message and stack; `undefined` when it could not be read. */
  describe(error: QuickJSHandle): GuestErrorInfo | undefined {
    try {
      return JSON.parse(this.callString('describeError', [error])) as GuestErrorInfo;
    } catch (failure) {
      if (failure instanceof ScaffoldTimeout) {
        return {
          name: 'Error',
          message: 'the thrown value could not be described in time',
          stack: '',
          lineNumber: null,
        };
      }
      if (failure instanceof EngineFault) return undefined;
      throw failure;
    }
  }

  /** Prints the block's completion value; a note instead when printing it took too long. */
  printCompletion(holder: QuickJSHandle): string {
    try {
      this.call('formatCompletion', [holder]).dispose();
      return '';
    } catch (failure) {
      if (!(failure instanceof ScaffoldTimeout)) throw failure;
      return 'note: the value of the last expression could not be printed in time\n';
    }
  }

  /** The block's final answer (and resets it for the next block). */
  takeFinal(): string | null {
    const { context } = this.#parts;
    const handle = this.call('takeFinal');
    try {
      return context.typeof(handle) === 'string' ? context.getString(handle) : null;
    } finally {
      handle.dispose();
    }
  }

  /** The block's stdout and stderr, each with a marker when some of it was cut. */
  takeOutput(): { stdout: string; stderr: string } {
    const raw = JSON.parse(this.callString('takeOutput')) as {
      stdout: string;
      stderr: string;
      droppedStdout: number;
      droppedStderr: number;
    };
    const marker = (dropped: number): string =>
      dropped > 0 ? `${truncationMarker(dropped)}\n` : '';
    return {
      stdout: raw.stdout + marker(raw.droppedStdout),
      stderr: raw.stderr + marker(raw.droppedStderr),
    };
  }

  /** A JSON-safe copy of a global, or `undefined` when there is none. */
  readVariable(name: string): JsonValue | undefined {
    const { context } = this.#parts;
    const entry = this.call('getVariable', [name]);
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

  /**
   * Frees memory after an out-of-memory error: releases the ballast (so the scaffold has room to
   * work), empties the globals created since `namesBefore` (JSON list of names), then takes the
   * ballast back, which doubles as the probe. Returns the names it emptied.
   *
   * @throws EngineFault (or an engine error) when memory stays exhausted
   */
  reclaimMemory(namesBefore: string): string[] {
    const { context, guard } = this.#parts;
    const released = guard(() => context.callFunction(this.#releaseBallast, context.undefined));
    if (released.error) released.error.dispose();
    else released.value.dispose();
    const before = new Set(JSON.parse(namesBefore) as string[]);
    const now = JSON.parse(this.callString('userNames')) as string[];
    const created = now.filter((name) => !before.has(name));
    this.call('deleteGlobals', [JSON.stringify(created)]).dispose();
    this.call('holdBallast').dispose();
    return created;
  }

  dispose(): void {
    this.#releaseBallast.dispose();
    this.#parts.internals.dispose();
  }
}
