import { Buffer } from 'node:buffer';
import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten-core';
import { charactersOffset, stringAt } from './new-guest-string-layout.js';

/** The part of quickjs-emscripten-core 0.32 (pinned exactly) this reads; checked before use. */
interface ContextInternals {
  module?: { HEAPU8: Uint8Array };
}

/**
 * Guest strings at least this long are read straight from WASM memory when they can be; shorter
 * ones the library's way, which costs little for them.
 * @default 65_536
 */
export const DIRECT_READ_MIN_CHARS = 65_536;

/** Where a string's characters start, per context (`null`: the layout was not recognised). */
const layouts = new WeakMap<QuickJSContext, { offset: number; tag: number } | null>();

/**
 * A guest string as a host string. The library's `getString` has QuickJS encode the string as
 * UTF-8 into freshly allocated WASM memory and decodes that in JavaScript: ~0.35 s for the 50–60
 * MB of JSON a batch of 3,000 prompts of 20 KB sends out. A long one-byte string (QuickJS stores
 * those as Latin-1, a byte a character) is read from its characters in place instead (~0.13 s,
 * no UTF-8 copy); anything else, and any layout this does not recognise, goes the library's way.
 */
export function readGuestString(context: QuickJSContext, handle: QuickJSHandle): string {
  return readOneByteGuestString(context, handle) ?? context.getString(handle);
}

/** The characters of a long one-byte guest string, or `undefined` when they cannot be read in place. */
export function readOneByteGuestString(
  context: QuickJSContext,
  handle: QuickJSHandle,
): string | undefined {
  const { module } = context as unknown as ContextInternals;
  if (module === undefined) return undefined;
  const at = stringAt(module.HEAPU8, handle);
  // A wide (UTF-16) string reads as length -1.
  if (at === undefined || at.lengthWord < DIRECT_READ_MIN_CHARS) return undefined;
  let layout = layouts.get(context);
  if (layout === undefined) {
    layout = charactersOffset(context, module) ?? null;
    layouts.set(context, layout);
  }
  if (layout === null || at.tag !== layout.tag) return undefined;
  const heap = module.HEAPU8;
  const from = at.pointer + layout.offset;
  if (from + at.lengthWord > heap.length) return undefined;
  return Buffer.from(heap.buffer, heap.byteOffset + from, at.lengthWord).toString('latin1');
}
