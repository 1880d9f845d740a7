import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten-core';

/**
 * The parts of quickjs-emscripten-core 0.32 (pinned exactly) this uses: not public API, so each
 * is checked before use, and `undefined` sends the caller to the public path.
 */
interface ContextInternals {
  module?: { HEAPU8: Uint8Array };
}

/** A string the probe looks for in WASM memory to find where a string's characters start. */
const PROBE = 'rlm:string-layout-probe:0123456789';
/** How far past a string's header start its characters may begin (QuickJS: 16 bytes). */
const MAX_HEADER_BYTES = 64;
/** Bit 31 of a string's second header word: set for UTF-16 strings. */
const WIDE_BIT = 0x8000_0000;

/**
 * Creates a guest string from ASCII bytes with one copy of them in WASM memory. Going through
 * UTF-8 (`newGuestStringFromUtf8`) needs the bytes in WASM memory first, then the string QuickJS
 * builds from them: twice the text's size of memory touched, and WASM memory never shrinks. Here
 * the guest makes a blank string of the right length (`' '.repeat(n)`, one exact allocation) and
 * the bytes are written over its characters: an ASCII string is stored one byte a character.
 *
 * That relies on QuickJS's string layout (a NaN-boxed value pointing at a header, then the
 * characters), which is checked on every call: the blank must be a one-byte string of length n,
 * and a probe string of known text locates where characters start. Anything unexpected returns
 * `undefined` (nothing is written). Call it before any guest code runs (the blank comes from
 * `String.prototype.repeat`). `write` puts exactly `length` bytes, all below 0x80 and none NUL,
 * into the characters it is given, so the bytes need not exist anywhere else first; when it
 * throws, the string is freed and the error goes on.
 */
export function newGuestAsciiString(
  context: QuickJSContext,
  length: number,
  write: (target: Uint8Array) => void,
): QuickJSHandle | undefined {
  const { module } = context as unknown as ContextInternals;
  if (module === undefined || length < PROBE.length) return undefined;
  const start = charactersOffset(context, module);
  if (start === undefined) return undefined;
  const blank = blankString(context, length);
  if (blank === undefined) return undefined;
  const at = stringAt(module.HEAPU8, blank);
  const heap = module.HEAPU8;
  if (
    at === undefined ||
    at.tag !== start.tag ||
    at.lengthWord !== length || // one-byte (no wide bit) and exactly n characters
    at.pointer + start.offset + length > heap.length ||
    heap[at.pointer + start.offset] !== 0x20 ||
    heap[at.pointer + start.offset + length - 1] !== 0x20
  ) {
    blank.dispose();
    return undefined;
  }
  const from = at.pointer + start.offset;
  try {
    write(heap.subarray(from, from + length));
  } catch (error) {
    blank.dispose();
    throw error;
  }
  return blank;
}

/** `' '.repeat(length)` in the guest, or undefined when it failed (out of memory). */
function blankString(context: QuickJSContext, length: number): QuickJSHandle | undefined {
  const space = context.newString(' ');
  const repeat = context.getProp(space, 'repeat');
  const count = context.newNumber(length);
  try {
    const result = context.callFunction(repeat, space, count);
    if (result.error !== undefined) {
      result.error.dispose();
      return undefined;
    }
    if (context.typeof(result.value) !== 'string') {
      result.value.dispose();
      return undefined;
    }
    return result.value;
  } finally {
    space.dispose();
    repeat.dispose();
    count.dispose();
  }
}

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
  const valuePointer = (handle as unknown as { value?: unknown }).value;
  if (typeof valuePointer !== 'number' || valuePointer % 4 !== 0) return undefined;
  if (valuePointer + 8 > heap.length) return undefined;
  const words = new DataView(heap.buffer, heap.byteOffset);
  // A 32-bit build NaN-boxes values: the low word is the pointer, the high word the tag.
  const pointer = words.getUint32(valuePointer, true);
  const tag = words.getInt32(valuePointer + 4, true);
  if (pointer === 0 || pointer % 4 !== 0 || pointer + 8 > heap.length) return undefined;
  const lengthWord = words.getUint32(pointer + 4, true);
  if ((lengthWord & WIDE_BIT) !== 0) return { pointer, tag, lengthWord: -1 };
  return { pointer, tag, lengthWord };
}
