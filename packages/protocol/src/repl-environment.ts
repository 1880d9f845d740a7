import type { JsonValue } from './json-value.js';
import type { REPLResult } from './repl-result.js';

/** A user variable as `listVariables()` reports it. */
export interface VariableInfo {
  name: string;
  /** `string`, `number`, `boolean`, `array`, `object`, `function`, `class`, `null`, `undefined`, … */
  type: string;
  /** Approximate size in characters (string length, JSON length, …). */
  size: number;
}

export interface ExecuteOptions {
  /** Aborts this block only; the environment stays usable. */
  signal?: AbortSignal;
  /**
   * Variables to define (as `setVariable` would) just before the block runs, in the same round
   * trip as the block: refreshing run metadata such as `__rlm` then costs no crossing of its own.
   * When one cannot be set, `execute()` rejects with that error and the block does not run.
   */
  variables?: Record<string, JsonValue>;
}

export interface GetVariableOptions {
  /**
   * Refuse a value longer than this many characters (its JSON text, or the string itself) with
   * an `RlmError` `sandbox.too_large`, instead of copying it out of the REPL.
   */
  maxChars?: number;
}

/**
 * A persistent REPL in which model-written code runs (implemented by @rlm/sandbox).
 * Every method is async because the engine may live in another thread.
 */
export interface ReplEnvironment {
  /** Runs one block; never rejects for errors in the code itself (they go to `stderr`/`error`). */
  execute(code: string, options?: ExecuteOptions): Promise<REPLResult>;
  /** A JSON-safe copy of a variable's value, or `undefined` if there is no such variable. */
  getVariable(name: string, options?: GetVariableOptions): Promise<JsonValue | undefined>;
  /** Defines (or replaces) a variable from the host, e.g. `context_2` or `history_1` in a session. */
  setVariable(name: string, value: JsonValue): Promise<void>;
  listVariables(): Promise<VariableInfo[]>;
  /** Frees the engine; idempotent. */
  dispose(): Promise<void>;
}
