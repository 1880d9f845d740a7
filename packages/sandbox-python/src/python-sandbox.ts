import type { ReplEnvironment } from '@rlm/protocol';

/** A persistent Python REPL (see `createPythonSandbox`). */
export interface PythonSandbox extends ReplEnvironment {
  /** Python always runs in a separate, permission-restricted process. */
  readonly isolation: 'process';
  /**
   * True once the sandbox can no longer run code (its interpreter process died between blocks,
   * or a replacement could not be started). `execute()` then rejects with `sandbox.poisoned`.
   */
  readonly poisoned: boolean;
  /** True after `dispose()` (or after the sandbox's `signal` aborted). */
  readonly disposed: boolean;
  /**
   * How many times the interpreter was replaced by a fresh one because a block could not be
   * stopped (or the interpreter failed) during it; each such block said so on stderr.
   */
  readonly resets: number;
}
