import { Buffer } from 'node:buffer';
import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten-core';
import { charactersOffset, stringHeader } from './new-guest-string-layout.js';

/** The part of quickjs-emscripten-core 0.32 (pinned exactly) this uses; checked before use. */
interface ContextInternals {
  module?: { HEAPU8: Uint8Array };
}

/** Shorter strings cost little the library's way; the probe also needs this many characters. */
const MIN_DIRECT_CHARS = 64;
/**
 * Characters of the fill string a blank is padded with. QuickJS pads with a one-character string
 * one character at a time (`' '.repeat(n)` took ~1.7 s for 50 MB); with a longer fill it copies
 * the fill whole, a block at a time.
 */
const FILL_CHARS = 4096;
/** The blank's characters: a space, or U+0100 for a wide (UTF-16) string. */
const ONE_BYTE_BLANK = 0x20;
const WIDE_BLANK = 0x0100;
/** A character no one-byte string holds. */
const WIDE_CHARACTER = /[\u0100-\uffff]/;

/**
 * How a guest string stores its characters: `one-byte` (Latin-1, a byte a character; QuickJS's
 * form for text with no character above U+00FF) or `wide` (UTF-16 code units, little-endian).
 */
export type GuestStringWidth = 'one-byte' | 'wide';

/**
 * Creates a guest string of `length` characters whose characters `write` puts straight into WASM
 * memory: `length` bytes of Latin-1 for `one-byte`, `2 × length` bytes of UTF-16LE for `wide`.
 * No character is handled one at a time by the interpreter, and only the string's own memory is
 * touched (not a UTF-8 copy of the text beside it, which WASM memory would never give back).
 *
 * The guest makes a blank of the right length and width (`String.prototype.padEnd` with a long
 * fill: one exact allocation, filled a block at a time), which relies on QuickJS's string layout;
 * that is checked on every call (width, length, the first and last blank characters, where a
 * probe string's characters start), and anything unexpected returns `undefined` with nothing
 * written. Call it before any guest code runs (the blank comes from `String.prototype`). When
 * `write` throws, the string is freed and the error goes on.
 */
export function newGuestDirectString(
  context: QuickJSContext,
  { length, width }: { length: number; width: GuestStringWidth },
  write: (characters: Uint8Array) => void,
): QuickJSHandle | undefined {
  const { module } = context as unknown as ContextInternals;
  if (module === undefined || length < MIN_DIRECT_CHARS) return undefined;
  const start = charactersOffset(context, module);
  if (start === undefined) return undefined;
  const blank = blankString(context, length, width);
  if (blank === undefined) return undefined;
  const heap = module.HEAPU8;
  const header = stringHeader(heap, blank);
  const bytes = width === 'wide' ? length * 2 : length;
  const from = header === undefined ? 0 : header.pointer + start.offset;
  if (
    header === undefined ||
    header.tag !== start.tag ||
    header.length !== length ||
    header.wide !== (width === 'wide') ||
    from + bytes > heap.length ||
    !isBlankAt(heap, from, width) ||
    !isBlankAt(heap, from + bytes - (width === 'wide' ? 2 : 1), width)
  ) {
    blank.dispose();
    return undefined;
  }
  try {
    write(heap.subarray(from, from + bytes));
  } catch (error) {
    blank.dispose();
    throw error;
  }
  return blank;
}

/**
 * A guest string holding exactly `text`, written straight into WASM memory (see
 * `newGuestDirectString`): any text, including NUL characters and lone surrogates, which the
 * UTF-8 path cannot carry. `undefined` when the direct path does not apply (short text, an
 * unrecognised layout, memory too short for the blank).
 */
export function newGuestStringFromText(
  context: QuickJSContext,
  text: string,
): QuickJSHandle | undefined {
  const width = guestStringWidth(text);
  return newGuestDirectString(context, { length: text.length, width }, (characters) => {
    const target = Buffer.from(characters.buffer, characters.byteOffset, characters.length);
    const written = target.write(text, 0, width === 'wide' ? 'utf16le' : 'latin1');
    if (written !== characters.length) throw new Error('the text did not fill its guest string');
  });
}

/** The width QuickJS stores `text` in (V8 answers this at once for its own one-byte strings). */
export function guestStringWidth(text: string): GuestStringWidth {
  return WIDE_CHARACTER.test(text) ? 'wide' : 'one-byte';
}

/** A blank guest string of `length` characters and the given width, or undefined (out of memory). */
function blankString(
  context: QuickJSContext,
  length: number,
  width: GuestStringWidth,
): QuickJSHandle | undefined {
  const blank = String.fromCharCode(width === 'wide' ? WIDE_BLANK : ONE_BYTE_BLANK);
  // A wide head makes QuickJS start the padded string wide, instead of widening it on the way.
  const head = context.newString(width === 'wide' ? blank : '');
  const fill = context.newString(blank.repeat(FILL_CHARS));
  const padEnd = context.getProp(head, 'padEnd');
  const count = context.newNumber(length);
  try {
    if (context.typeof(fill) !== 'string') return undefined;
    const result = context.callFunction(padEnd, head, count, fill);
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
    head.dispose();
    fill.dispose();
    padEnd.dispose();
    count.dispose();
  }
}

function isBlankAt(heap: Uint8Array, at: number, width: GuestStringWidth): boolean {
  if (width === 'one-byte') return heap[at] === ONE_BYTE_BLANK;
  return heap[at] === (WIDE_BLANK & 0xff) && heap[at + 1] === WIDE_BLANK >> 8;
}
