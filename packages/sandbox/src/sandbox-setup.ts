import type { EngineInit } from './engine/quickjs-engine.js';
import type { HostFunction } from './sandbox-options.js';

/** What a sandbox implementation is built from (validated options, resolved defaults). */
export interface SandboxSetup {
  init: EngineInit;
  functions: Record<string, HostFunction>;
  /** Aborting disposes the sandbox. */
  signal: AbortSignal | undefined;
}

/** Calls `onAbort` once when `signal` aborts; returns the function that removes the listener. */
export function bindToSignal(signal: AbortSignal | undefined, onAbort: () => unknown): () => void {
  if (signal === undefined) return () => {};
  const listener = (): void => {
    void onAbort();
  };
  signal.addEventListener('abort', listener, { once: true });
  return () => signal.removeEventListener('abort', listener);
}
