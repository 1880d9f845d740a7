/**
 * Messages inside an interpreter process: parent ↔ supervisor (IPC, structured clone) and
 * supervisor ↔ interpreter worker (postMessage). Type-only: code in the child process imports
 * nothing outside this package and Node's built-ins, so it stays within the permission model's
 * read allowance. The parent checks everything the child sends (see host/child-replies.ts).
 */

/** Indices into the Int32Array over the shared buffer between supervisor and worker. */
export const SHARED_SLOTS = {
  /** Pyodide's interrupt buffer: 2 (SIGINT) raises KeyboardInterrupt at the next check. */
  interrupt: 0,
  /** Bumped by the supervisor when a host reply is waiting on the reply port. */
  reply: 1,
  /** 1 while model code runs (the supervisor only interrupts then). */
  phase: 2,
} as const;
export const SHARED_BYTES = 16;

/**
 * Most characters of one host call's request or reply crossing the sandbox boundary (64 Mi). A
 * bigger one is refused with an error in Python, never serialised on the host.
 */
export const MAX_BRIDGE_CHARS = 64 * 1024 * 1024;

/** What the interpreter needs to load. */
export interface LoadOptions {
  /** Absolute directory of the `pyodide` package. */
  pyodideDir: string;
  /** Hard cap of the interpreter's WebAssembly memory. */
  memoryBytes: number;
  /** A memory snapshot of a freshly loaded interpreter (faster than loading from scratch). */
  snapshot: Uint8Array | null;
  /** Take a snapshot after loading and send it back with `loaded`. */
  makeSnapshot: boolean;
}

/**
 * A payload bound to `context_N` or `history_N`, as UTF-8 bytes: a string's own, anything else's
 * JSON. Bytes cross the process boundary as one block copy and move to the interpreter thread
 * without another, where Python decodes them in C.
 */
export interface PayloadInit {
  name: string;
  kind: 'text' | 'json';
  bytes: Uint8Array;
  /** Every character is ASCII (a text whose UTF-8 is as long as the text). */
  ascii?: boolean;
}

/** What one sandbox's session on an interpreter is built from. */
export interface BootConfig {
  payloads: PayloadInit[];
  functions: string[];
  helpers: string[];
  meta: unknown;
  cpuSliceMs: number;
  blockTimeoutMs: number;
  maxOutputChars: number;
  maxAnswerChars: number;
}

export type InterpreterRequest =
  | { type: 'execute'; code: string }
  | { type: 'getVariable'; name: string }
  | { type: 'setVariable'; name: string; json: string }
  | { type: 'listVariables' };

/** Why the supervisor stopped a block. */
export type StopKind = 'cpu' | 'wall' | 'aborted';

/** A block's outcome as the interpreter reports it (the parent turns it into a REPLResult). */
export interface RawBlockResult {
  stdout: string;
  stderr: string;
  droppedStdout: number;
  droppedStderr: number;
  error: { name: string; message: string; line: number | null; traceback: string } | null;
  locals: Record<string, string>;
  finalAnswer: string | null;
  /** Variables removed after an out-of-memory error. */
  cleared: string[];
  /** Set when the supervisor interrupted the block. */
  stop: StopKind | null;
  /** Set when the interpreter was lost during the block (the process is then useless). */
  lost: { reason: 'unresponsive' | 'fatal'; detail: string } | null;
}

/** Parent → supervisor. */
export type ToSupervisor =
  | { type: 'load'; options: LoadOptions }
  | { type: 'boot'; config: BootConfig }
  | { type: 'request'; id: number; request: InterpreterRequest }
  | { type: 'abort'; id: number }
  | { type: 'hostReply'; callId: number; reply: string };

/** Supervisor → parent. */
export type FromSupervisor =
  | { type: 'loaded'; snapshot: Uint8Array | null }
  | { type: 'failed'; message: string }
  | { type: 'ready' }
  | { type: 'reply'; id: number; ok: true; value: unknown }
  | { type: 'reply'; id: number; ok: false; message: string }
  | { type: 'hostCall'; callId: number; request: string }
  | { type: 'hostCancel'; callId: number };

/** Supervisor → worker. */
export type ToWorker =
  | { type: 'load'; options: LoadOptions; shared: SharedArrayBuffer }
  | { type: 'boot'; config: BootConfig }
  | { type: 'request'; request: InterpreterRequest };

/** Worker → supervisor. */
export type FromWorker =
  | { type: 'loaded'; snapshot: Uint8Array | null }
  | { type: 'failed'; message: string }
  | { type: 'done'; ok: true; value: unknown }
  | { type: 'done'; ok: false; message: string; fatal: boolean }
  | { type: 'hostCall'; callId: number; request: string };

/** Supervisor → worker, on the reply port while the worker waits in `Atomics.wait`. */
export interface HostReplyMessage {
  callId: number;
  reply: string;
}
