import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten-core';

/** A string the probe looks for in WASM memory to find where a string's characters start. */
const PROBE = 'rlm:string-layout-probe:0123456789';
/** How far past a string's header start its characters may begin (QuickJS: 16 bytes). */
const MAX_HEADER_BYTES = 64;
/** Bit 31 of a string's second header word: set for UTF-16 strings. */
const WIDE_BIT = 0x8000_0000;

/**
 * Where a string's characters start, relative to its header, and the tag of a flat string:
 * found by locating a probe string's known text.
 */
export function charactersOffset(
  context: QuickJSContext,
  module: { HEAPU8: Uint8Array },
): { offset: number; tag: number } | undefined {
  const probe = context.newString(PROBE);
  try {
    const at = stringAt(module.HEAPU8, probe);
    if (at === undefined || at.lengthWord !== PROBE.length) return undefined;
    const heap = module.HEAPU8;
    const wanted = new TextEncoder().encode(PROBE);
    for (let offset = 8; offset <= MAX_HEADER_BYTES; offset += 4) {
      const from = at.pointer + offset;
      if (from + wanted.length > heap.length) return undefined;
      if (wanted.every((byte, index) => heap[from + index] === byte)) {
        return { offset, tag: at.tag };
      }
    }
    return undefined;
  } finally {
    probe.dispose();
  }
}

/** The header address, tag and second header word (length, wide bit) of a string handle. */
export function stringAt(
  heap: Uint8Array,
  handle: QuickJSHandle,
): { pointer: number; tag: number; lengthWord: number } | undefined {
  const header = stringHeader(heap, handle);
  if (header === undefined) return undefined;
  return { pointer: header.pointer, tag: header.tag, lengthWord: header.wide ? -1 : header.length };
}

/** The header address, tag, length and width (one byte or UTF-16 per character) of a string handle. */
export function stringHeader(
  heap: Uint8Array,
  handle: QuickJSHandle,
): { pointer: number; tag: number; length: number; wide: boolean } | undefined {
  const valuePointer = (handle as unknown as { value?: unknown }).value;
  if (typeof valuePointer !== 'number' || valuePointer % 4 !== 0) return undefined;
  if (valuePointer + 8 > heap.length) return undefined;
  const words = new DataView(heap.buffer, heap.byteOffset);
  // A 32-bit build NaN-boxes values: the low word is the pointer, the high word the tag.
  const pointer = words.getUint32(valuePointer, true);
  const tag = words.getInt32(valuePointer + 4, true);
  if (pointer === 0 || pointer % 4 !== 0 || pointer + 8 > heap.length) return undefined;
  const lengthWord = words.getUint32(pointer + 4, true);
  return { pointer, tag, length: lengthWord & ~WIDE_BIT, wide: (lengthWord & WIDE_BIT) !== 0 };
}
