import type { QuickJSContext, QuickJSRuntime } from 'quickjs-emscripten-core';
import type { ResolvedLimits } from '../sandbox-options.js';
import type { ResetReason } from '../sandbox-reset.js';
import { type BlockClock, startBlockClock } from './block-clock.js';
import type { HostBridge } from './host-bridge.js';
import type { Interrupts } from './interrupts.js';
import type { Scaffold } from './scaffold.js';
import type { WatchdogCell } from './watchdog-cell.js';

/** How guest code run for the host (a block, a read) can be stopped. */
export interface EngineRunOptions {
  signal?: AbortSignal;
  /**
   * Stops the work as `signal` does (an inline sandbox's caller signal, beside the sandbox's own):
   * read where `signal` is read, and listened to only while a block waits for host calls. A
   * signal linking the two would cost every block an AbortController and two listeners.
   */
  alsoSignal?: AbortSignal;
  /** Checked by the interrupt handler: lets another thread stop CPU-bound code (SharedArrayBuffer flag). */
  interrupted?: () => boolean;
}

/** The pieces of one engine that running a block, and reading guest values, work with. */
export interface EngineParts {
  readonly runtime: QuickJSRuntime;
  readonly context: QuickJSContext;
  readonly bridge: HostBridge;
  readonly scaffold: Scaffold;
  readonly interrupts: Interrupts;
  readonly watchdog: WatchdogCell;
  readonly limits: ResolvedLimits;
  /** Runs engine work; any non-QuickJS exception poisons the engine (see `poisonReason`). */
  guard<T>(work: () => T): T;
  /** Why the engine can no longer run code, if it cannot. */
  poisonReason: string | undefined;
  /** Set when jobs left behind could not be stopped: the engine must be replaced. */
  resetReason: ResetReason | undefined;
}

const NEVER_ABORTED = new AbortController().signal;

/** A clock for guest code run for the host: a block's, or one of the host's own reads. */
export function startClock(
  parts: EngineParts,
  options: EngineRunOptions,
  limits: ResolvedLimits = parts.limits,
): BlockClock {
  return startBlockClock({
    limits,
    interrupts: parts.interrupts,
    guard: parts.guard,
    signals:
      options.alsoSignal === undefined
        ? [options.signal ?? NEVER_ABORTED]
        : [options.signal ?? NEVER_ABORTED, options.alsoSignal],
    interrupted: options.interrupted,
    watchdog: parts.watchdog,
  });
}

/** Puts the interrupt handler back to idle once a clock's work is over. */
export function endClock(parts: EngineParts): void {
  parts.interrupts.check = undefined;
  parts.interrupts.deadline = Number.POSITIVE_INFINITY;
  parts.interrupts.reason = undefined;
}
