import type { RlmError } from '@rlm/protocol/core';
import type { ResolvedLimits } from '../sandbox-options.js';
import { limitErrors } from './block-outcome.js';
import type { Interrupts } from './interrupts.js';
import type { WatchdogCell } from './watchdog-cell.js';

/** One block's time accounting. */
export interface BlockClock {
  /** Any of these aborting stops the block. */
  signals: readonly AbortSignal[];
  wallDeadline: number;
  /**
   * Runs guest work under the block's remaining CPU allowance (and the watchdog); `maxMs` caps
   * this slice further (for the scaffold's own reporting, which must not use up a whole budget).
   */
  slice<T>(work: () => T, maxMs?: number): T;
  /** The limit that stopped the block, if one did. */
  stopped(): RlmError | undefined;
  /** Whether the last slice was stopped by its own `maxMs` (the block itself goes on). */
  capped(): boolean;
}

export interface BlockClockOptions {
  limits: ResolvedLimits;
  interrupts: Interrupts;
  /** Runs engine work, poisoning the engine on a non-QuickJS exception. */
  guard: <T>(work: () => T) => T;
  /** One or two signals (see `EngineRunOptions.alsoSignal`). */
  signals: readonly AbortSignal[];
  /** Another thread's abort flag, read by the interrupt handler. */
  interrupted: (() => boolean) | undefined;
  /** Where each slice's deadline is published for the watchdog outside the engine. */
  watchdog: WatchdogCell;
}

/**
 * Starts a block's clock: guest code runs in slices, each with an interrupt deadline set to the
 * CPU time the block has left (time spent awaiting host calls does not count), while the
 * wall-clock deadline covers the whole block. Each slice's deadline is also published to the
 * watchdog, which stops the thread when a native builtin overruns it. The host's own reads of
 * guest values (`getVariable`, `listVariables`) get a clock of their own with the same limits.
 */
export function startBlockClock({
  limits,
  interrupts,
  guard,
  signals,
  interrupted,
  watchdog,
}: BlockClockOptions): BlockClock {
  const first = signals[0] as AbortSignal;
  const second = signals[1];
  const aborted = (): boolean => first.aborted || second?.aborted === true;
  let cpuUsed = 0;
  const wallDeadline = Date.now() + limits.blockTimeoutMs;
  interrupts.reason = undefined;
  interrupts.check = () => aborted() || interrupted?.() === true;
  return {
    signals,
    wallDeadline,
    slice: <T>(work: () => T, maxMs = Number.POSITIVE_INFINITY): T => {
      const start = Date.now();
      if (interrupts.reason === 'capped') interrupts.reason = undefined;
      // Whichever comes first: the CPU time left, or the block's wall-clock deadline.
      const cpuDeadline = start + Math.max(0, limits.cpuSliceMs - cpuUsed);
      const budgetDeadline = Math.min(cpuDeadline, wallDeadline);
      interrupts.deadline = Math.min(budgetDeadline, start + maxMs);
      watchdog.arm(interrupts.deadline, cpuDeadline <= wallDeadline ? 'cpu' : 'wall');
      try {
        return guard(work);
      } finally {
        watchdog.disarm();
        cpuUsed += Date.now() - start;
        if (interrupts.reason === 'cpu' && interrupts.deadline < budgetDeadline) {
          interrupts.reason = 'capped';
        }
        interrupts.deadline = Number.POSITIVE_INFINITY;
      }
    },
    stopped: () => {
      if (interrupts.reason === 'capped') return undefined;
      if (interrupts.reason === 'cpu') {
        return Date.now() >= wallDeadline && cpuUsed < limits.cpuSliceMs
          ? limitErrors.wall(limits.blockTimeoutMs)
          : limitErrors.cpu(limits.cpuSliceMs);
      }
      if (interrupts.reason === 'aborted' || aborted()) return limitErrors.aborted();
      return undefined;
    },
    capped: () => interrupts.reason === 'capped',
  };
}
