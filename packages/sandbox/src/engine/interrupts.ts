/**
 * Why the interrupt handler stopped guest code; `capped` when a slice's own cap (shorter than the
 * block's budget) ran out, which stops that slice only.
 */
export type InterruptReason = 'cpu' | 'capped' | 'aborted' | 'forced';

/**
 * The state QuickJS's interrupt handler reads while guest code runs: a CPU deadline, an abort
 * check (which may read a flag another thread sets), and a switch that stops everything (used to
 * drain jobs left over from a stopped block). The handler runs every few thousand guest
 * operations, so it must stay cheap.
 */
export class Interrupts {
  deadline = Number.POSITIVE_INFINITY;
  check: (() => boolean) | undefined;
  reason: InterruptReason | undefined;
  force = false;

  /** The handler given to `runtime.setInterruptHandler`. */
  readonly handler = (): boolean => {
    if (this.force) {
      this.reason = 'forced';
      return true;
    }
    if (this.check?.()) {
      this.reason = 'aborted';
      return true;
    }
    if (Date.now() > this.deadline) {
      this.reason = 'cpu';
      return true;
    }
    return false;
  };

  /**
   * Runs `work` with its own CPU allowance, then restores the block's deadline and reason;
   * `onInterrupted` turns a stop caused by this allowance into an error.
   */
  withAllowance<T>(allowanceMs: number, work: () => T): { value: T; timedOut: boolean } {
    const previous = this.deadline;
    const previousReason = this.reason;
    this.deadline = Date.now() + allowanceMs;
    this.reason = undefined;
    try {
      const value = work();
      return { value, timedOut: this.reason === 'cpu' };
    } finally {
      this.deadline = previous;
      this.reason = previousReason;
    }
  }
}
