import type { GetVariableOptions, ReplEnvironment } from '@rlm/protocol';

export type { GetVariableOptions };

/** Where the engine runs. */
export type SandboxIsolation = 'worker' | 'inline';

/** A persistent QuickJS REPL (see `createSandbox`). */
export interface Sandbox extends ReplEnvironment {
  /** How this sandbox is isolated from the host thread. */
  readonly isolation: SandboxIsolation;
  /**
   * True once the engine can no longer run code (memory stayed exhausted, an engine fault, a
   * worker that died). `execute()` then rejects with `sandbox.poisoned`; create a new sandbox.
   */
  readonly poisoned: boolean;
  /** True after `dispose()` (or after the sandbox's `signal` aborted). */
  readonly disposed: boolean;
  /**
   * How many times the engine was replaced by a fresh one (`sandbox.reset`), losing what blocks
   * defined. The block or read that was running says so itself; this count lets a caller that
   * never saw that result (it cancelled the block and dropped its answer) tell the state is gone.
   */
  readonly resets: number;
}
