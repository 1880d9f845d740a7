/**
 * Runs the block path once per thread on a throwaway engine, before a sandbox's first block.
 *
 * A sandbox with a long payload runs on a fresh worker (its worker is never handed on: see the
 * package README, "Worker reuse"), where its first block would otherwise compile the host side of the block path
 * as it goes: acorn's rewrite, the slices, the host-call bridge, the end of the block. Measured,
 * that was 3–8 ms of its first helper call, and most of the gap to a warm one. The warm-up runs a
 * block that declares a name and awaits a host call, on an engine of its own with its own host
 * function: nothing of the sandbox (its engine, guest state, host functions or helpers) is
 * involved. It runs while the scan worker starts, before the sandbox reports ready.
 */

/** Memory of the throwaway engine: small, so the engine costs little. */
export const WARM_UP_MEMORY_BYTES = 16 * 1024 * 1024;
/** The warm-up engine's one host function, and what it answers (JSON text). */
export const WARM_UP_FUNCTION = 'warm_up';
export const WARM_UP_ANSWER = '"ok"';
/** The block: a declaration (so acorn's rewrite runs), an awaited host call, output, a value. */
export const WARM_UP_BLOCK = `const answer = await ${WARM_UP_FUNCTION}("x"); print(answer); answer`;

/** The parts of an engine the warm-up uses. */
export interface WarmUpEngine {
  execute(code: string): Promise<{ error: unknown }>;
  dispose(): void;
}

/** Whether this thread ran the warm-up (its compiled code stays for the thread's life). */
let warm = false;

/** Whether this thread's block path was warmed (read by tests). */
export function blockPathWarm(): boolean {
  return warm;
}

/**
 * Starts an engine with `start`, runs the warm-up block on it and frees it; once per thread
 * (later calls return at once). Never rejects: a warm-up that fails only leaves the code cold.
 */
export async function warmBlockPath(start: () => Promise<WarmUpEngine>): Promise<void> {
  if (warm) return;
  warm = true;
  let engine: WarmUpEngine | undefined;
  try {
    engine = await start();
    await engine.execute(WARM_UP_BLOCK);
  } catch {
    // Cold code is slower, not wrong.
  } finally {
    engine?.dispose();
  }
}
