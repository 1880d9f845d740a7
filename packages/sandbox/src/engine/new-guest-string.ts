import { Buffer } from 'node:buffer';
import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten-core';
import { type SharedText, sharedByteLength, writeSharedText } from '../context-ops/shared-text.js';
import { newGuestAsciiString } from './new-guest-ascii-string.js';

/**
 * The parts of quickjs-emscripten-core 0.32 (pinned exactly) that `newGuestString` uses. They are
 * not public API, so every one is checked before use and the public path is the fallback.
 */
interface ContextInternals {
  module?: { _malloc(size: number): number; _free(ptr: number): void; HEAPU8: Uint8Array };
  ffi?: { QTS_NewString(ctx: number, ptr: number): number };
  ctx?: { value: number };
  memory?: { heapValueHandle(ptr: number): QuickJSHandle };
}

const NUL = '\u0000';

/**
 * Creates a guest string from a host string, quickly. The library's `newString` measures and
 * encodes UTF-8 with JavaScript loops (~1–2.5 s for 50 MB on our machines); V8's native encoder
 * writes the bytes straight into WASM memory in ~50 ms, and QuickJS then builds its string from
 * them. Returns `undefined` when the fast path does not apply: text QuickJS would cut at a NUL or
 * that holds lone surrogates (UTF-8 cannot carry them), or library internals that are missing.
 * Callers then fall back to JSON, which escapes both. A returned handle may still fail to be a
 * string when memory is short: check `context.typeof`.
 */
export function newGuestString(context: QuickJSContext, text: string): QuickJSHandle | undefined {
  if (text.includes(NUL) || !(text as unknown as { isWellFormed(): boolean }).isWellFormed()) {
    return undefined;
  }
  return withUtf8(context, Buffer.byteLength(text, 'utf8'), (target) => {
    new TextEncoder().encodeInto(text, target);
  });
}

/**
 * Creates a guest string from a `SharedText` without decoding it on this thread. ASCII text (a
 * byte a character) is written once, straight into the string QuickJS keeps, rather than copied
 * into WASM memory and then built into a string (which touches twice the memory, never given
 * back); other text goes through UTF-8 in WASM memory. Its bytes come from shared memory, from
 * the string itself on the thread that holds it, or piece by piece from that thread. Only before
 * any guest code runs (see `newGuestAsciiString`). `undefined` and a handle that is not a string
 * mean what they mean for `newGuestString`.
 */
export function newGuestStringFromShared(
  context: QuickJSContext,
  shared: SharedText,
): QuickJSHandle | undefined {
  const length = sharedByteLength(shared);
  const write = (target: Uint8Array): void => writeSharedText(shared, target, 'engine');
  return (
    (length === shared.length ? newGuestAsciiString(context, length, write) : undefined) ??
    withUtf8(context, length, write)
  );
}

/** Writes `length` bytes of UTF-8 into WASM memory with `write`, and makes a guest string of them. */
function withUtf8(
  context: QuickJSContext,
  length: number,
  write: (target: Uint8Array) => void,
): QuickJSHandle | undefined {
  const { module, ffi, ctx, memory } = context as unknown as ContextInternals;
  if (module === undefined || ffi === undefined || ctx === undefined || memory === undefined) {
    return undefined;
  }
  const ptr = module._malloc(length + 1);
  if (ptr === 0) return undefined;
  try {
    // HEAPU8 is read after malloc: the memory is fixed-size, but the view must be current.
    const heap = module.HEAPU8;
    write(heap.subarray(ptr, ptr + length));
    heap[ptr + length] = 0;
    return memory.heapValueHandle(ffi.QTS_NewString(ctx.value, ptr));
  } finally {
    module._free(ptr);
  }
}
