import { Buffer } from 'node:buffer';
import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten-core';
import {
  heldSharedText,
  type SharedText,
  writeGuestCharacters,
} from '../context-ops/shared-text.js';
import { newGuestDirectString, newGuestStringFromText } from './new-guest-direct-string.js';

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
 * Creates a guest string from a `SharedText` without a UTF-8 copy of it in WASM memory when it
 * can: the characters are written once, straight into the string QuickJS keeps (see
 * `newGuestDirectString`), as Latin-1 or UTF-16 as QuickJS stores them. On the thread that holds
 * the string they come from the string itself; elsewhere piece by piece from that thread, already
 * in that layout, so this thread only copies bytes. A `SharedBytes` (UTF-8) of ASCII text is
 * copied as it is; other UTF-8 goes through WASM memory. Only before any guest code runs.
 * `undefined` and a handle that is not a string mean what they mean for `newGuestString`.
 */
export function newGuestStringFromShared(
  context: QuickJSContext,
  shared: SharedText,
): QuickJSHandle | undefined {
  if (!('bytes' in shared)) {
    const held = heldSharedText(shared);
    if (held !== undefined) {
      return newGuestStringFromText(context, held) ?? newGuestString(context, held);
    }
    const width = shared.wide ? 'wide' : 'one-byte';
    return newGuestDirectString(context, { length: shared.length, width }, (characters) =>
      writeGuestCharacters(shared, characters),
    );
  }
  const { bytes } = shared;
  const write = (target: Uint8Array): void => target.set(new Uint8Array(bytes));
  if (bytes.byteLength === shared.length) {
    return (
      newGuestDirectString(context, { length: shared.length, width: 'one-byte' }, write) ??
      withUtf8(context, bytes.byteLength, write)
    );
  }
  return withUtf8(context, bytes.byteLength, write);
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
