import type { ErrorCode, JsonValue } from '@rlm/protocol';
import type { ScanOperation } from './context-ops/scan-messages.js';
import type { CompiledEngine } from './engine/load-quickjs.js';
import type { EngineInit } from './engine/quickjs-engine.js';

/** The first message of each sandbox's session on a worker: what its engine is built from. */
export interface WorkerBoot {
  type: 'boot';
  init: EngineInit;
  /** Int32Array[0] holds the id of the request to abort: the interrupt handler reads it while guest code runs. */
  abortFlag: SharedArrayBuffer;
  /** Where the engine publishes the deadline of the guest code it runs (see watchdog-cell.ts). */
  watchdog: SharedArrayBuffer;
}

/**
 * Sent to a worker that waits for its next boot: build a blank engine of this size now (see
 * blank-engine.ts), so the next sandbox's engine starts from it.
 */
export interface WorkerPrepare {
  type: 'prepare';
  memoryBytes: number;
  compiled?: CompiledEngine;
}

/** A failure that crosses the thread boundary (RlmError fields or a plain error). */
export interface WireError {
  code?: ErrorCode;
  message: string;
  details?: unknown;
  name?: string;
}

export type Request =
  /** `variables`: set (as `setVariable` would) before the block runs, in the same message. */
  | { type: 'execute'; code: string; variables?: [string, JsonValue][] }
  | { type: 'getVariable'; name: string; maxChars?: number }
  | { type: 'setVariable'; name: string; value: JsonValue }
  | { type: 'listVariables' }
  | { type: 'dispose' };

/** Host → worker. */
export type ToWorker =
  | { type: 'request'; id: number; request: Request }
  | { type: 'abort'; id: number }
  /** `text`: the result as JSON, already within `maxHostCallChars`. */
  | { type: 'hostResult'; callId: number; ok: true; text: string | undefined }
  | { type: 'hostResult'; callId: number; ok: false; error: WireError };

/** Worker → host. */
export type FromWorker =
  /** `prepared`: the engine started from the blank engine the worker had built while it waited. */
  | { type: 'ready'; prepared: boolean }
  | { type: 'initFailed'; error: WireError }
  | { type: 'reply'; id: number; ok: true; value: unknown }
  | { type: 'reply'; id: number; ok: false; error: WireError }
  | { type: 'hostCall'; callId: number; name: string; args: JsonValue[] }
  /**
   * A context helper's scan of a long payload, for the host to answer from the text it holds
   * (see held-scan.ts). The `hostResult` answering it: the value as JSON, or no text when the host
   * leaves the scan to the worker's scan thread.
   */
  | { type: 'heldScan'; callId: number; payload: string; operation: ScanOperation }
  | { type: 'hostCancel'; callId: number };
