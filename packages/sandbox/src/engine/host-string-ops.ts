import { Buffer } from 'node:buffer';
import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten-core';
import { type HostRegExpPlan, hostRegExpPlan } from './host-regexp-plan.js';
import { newGuestString } from './new-guest-string.js';
import { charactersOffset, stringAt } from './new-guest-string-layout.js';

/** The answer that sends the guest back to its built-in (see src/guest/native-strings.ts). */
const NOT_HANDLED = -2;
/** No match (`exec`). */
const NO_MATCH = -1;
/** Operation codes, as src/guest/native-strings.ts sends them. */
const OP_INDEX_OF = 1;
const OP_LAST_INDEX_OF = 2;
const OP_EXEC = 3;
const OP_MATCH_ALL = 4;
const OP_SPLIT = 5;

/** Strings held at once: the contexts and a few host-set variables. */
const MAX_HELD = 32;
/** A global match with more matches than this is left to QuickJS (its array would be huge). */
const MAX_MATCHES = 1_000_000;
/** Bit 31 of a string's second header word: set for UTF-16 strings. */
const WIDE_BIT = 0x8000_0000;

/** The part of quickjs-emscripten-core 0.32 (pinned exactly) this reads; checked before use. */
interface ContextInternals {
  module?: { HEAPU8: Uint8Array };
}

/** A flat guest string in WASM memory. */
interface FlatString {
  pointer: number;
  length: number;
  wide: boolean;
  /** Where its characters start in the heap. */
  from: number;
}

interface Held {
  handle: QuickJSHandle;
  length: number;
  /** The host's copy, made on first use. */
  text: string | undefined;
}

let handled = 0;

/** How many guest calls the host has answered so far, on this thread (for tests). */
export function hostStringCallsHandled(): number {
  return handled;
}

/**
 * The host's side of the native string methods: the long guest strings it holds, and the
 * synchronous host function that searches them with V8. A held string is known by the address
 * of its QuickJS string, which cannot be reused while the host keeps a reference to it (a
 * duplicated handle), and whose characters never change: QuickJS strings are immutable, and one
 * with more than one reference is never grown in place. So asking whether the guest's string is
 * one of them costs a map lookup, never a comparison of the text. The host's copy is read from
 * the guest string's own characters on first use, so it is the very text QuickJS searches.
 */
export class HostStrings {
  readonly #context: QuickJSContext;
  readonly #minChars: number;
  readonly #held = new Map<number, Held>();
  /** The address of the string held for each global name. */
  readonly #names = new Map<string, number>();
  #layout: { offset: number; tag: number } | null | undefined;

  constructor(context: QuickJSContext, minChars: number) {
    this.#context = context;
    this.#minChars = minChars;
  }

  /**
   * Keeps a guest string the host bound to the global `name` (a context) so the methods can
   * find it; the string `name` held before is let go.
   */
  hold(handle: QuickJSHandle, name: string): void {
    const before = this.#names.get(name);
    if (before !== undefined) {
      this.#names.delete(name);
      this.#held.get(before)?.handle.dispose();
      this.#held.delete(before);
    }
    if (this.#held.size >= MAX_HELD) return;
    const flat = this.#flat(handle);
    if (flat === undefined || flat.length < this.#minChars || this.#held.has(flat.pointer)) return;
    this.#held.set(flat.pointer, { handle: handle.dup(), length: flat.length, text: undefined });
    this.#names.set(name, flat.pointer);
  }

  /** The guest's synchronous `native(op, text, a, b, c)` (see native-strings.ts). */
  newFunction(): QuickJSHandle {
    // biome-ignore lint/complexity/useMaxParams: the guest function's positional arguments
    return this.#context.newFunction('native', (op, text, a, b, c) => {
      let answer: number | string;
      try {
        answer = this.#answer(op, text, a, b, c);
      } catch {
        answer = NOT_HANDLED;
      }
      if (answer !== NOT_HANDLED) handled++;
      return this.#toGuest(answer);
    });
  }

  #toGuest(answer: number | string): QuickJSHandle {
    const context = this.#context;
    if (typeof answer === 'number') return context.newNumber(answer);
    const handle = newGuestString(context, answer) ?? context.newString(answer);
    if (context.typeof(handle) === 'string') return handle;
    // Memory is short: the guest's built-in runs (and meets the same shortage).
    handle.dispose();
    return context.newNumber(NOT_HANDLED);
  }

  // biome-ignore lint/complexity/useMaxParams: the guest function's positional arguments
  #answer(
    opHandle: QuickJSHandle | undefined,
    textHandle: QuickJSHandle | undefined,
    a: QuickJSHandle | undefined,
    b: QuickJSHandle | undefined,
    c: QuickJSHandle | undefined,
  ): number | string {
    const op = this.#number(opHandle);
    const text = textHandle === undefined ? undefined : this.#heldText(textHandle);
    if (text === undefined || op === undefined) return NOT_HANDLED;
    if (op === OP_INDEX_OF || op === OP_LAST_INDEX_OF) {
      const search = this.#exact(a);
      const position = this.#number(b);
      if (search === undefined || position === undefined) return NOT_HANDLED;
      return op === OP_INDEX_OF
        ? text.indexOf(search, position)
        : text.lastIndexOf(search, position);
    }
    return this.#regexp(op, text, a, b, c);
  }

  // biome-ignore lint/complexity/useMaxParams: the guest function's positional arguments
  #regexp(
    op: number,
    text: string,
    a: QuickJSHandle | undefined,
    b: QuickJSHandle | undefined,
    c: QuickJSHandle | undefined,
  ): number | string {
    const source = this.#exact(a);
    const flags = this.#exact(b);
    const plan =
      source === undefined || flags === undefined ? undefined : hostRegExpPlan(source, flags);
    if (plan === undefined) return NOT_HANDLED;
    if (op === OP_EXEC) {
      const from = this.#number(c);
      return from === undefined ? NOT_HANDLED : execAt(plan, text, from);
    }
    if (op === OP_SPLIT) return split(plan, text, this.#number(c));
    return op === OP_MATCH_ALL ? matchAll(plan, text) : NOT_HANDLED;
  }

  #number(handle: QuickJSHandle | undefined): number | undefined {
    if (handle === undefined || this.#context.typeof(handle) !== 'number') return undefined;
    return this.#context.getNumber(handle);
  }

  /** A guest string's exact text (lone surrogates kept), read from its characters. */
  #exact(handle: QuickJSHandle | undefined): string | undefined {
    if (handle === undefined || this.#context.typeof(handle) !== 'string') return undefined;
    const flat = this.#flat(handle);
    return flat === undefined ? undefined : this.#decode(flat);
  }

  #heldText(handle: QuickJSHandle): string | undefined {
    if (this.#held.size === 0) return undefined;
    const flat = this.#flat(handle);
    if (flat === undefined) return undefined;
    const held = this.#held.get(flat.pointer);
    if (held === undefined || held.length !== flat.length) return undefined;
    held.text ??= this.#decode(flat);
    return held.text;
  }

  #decode(flat: FlatString): string {
    const heap = this.#heap() as Uint8Array;
    const bytes = Buffer.from(
      heap.buffer,
      heap.byteOffset + flat.from,
      flat.wide ? flat.length * 2 : flat.length,
    );
    return bytes.toString(flat.wide ? 'utf16le' : 'latin1');
  }

  #heap(): Uint8Array | undefined {
    return (this.#context as unknown as ContextInternals).module?.HEAPU8;
  }

  /** Where a string handle's characters are, when it is a flat string in the layout probed. */
  #flat(handle: QuickJSHandle): FlatString | undefined {
    const module = (this.#context as unknown as ContextInternals).module;
    if (module === undefined) return undefined;
    if (this.#layout === undefined) this.#layout = charactersOffset(this.#context, module) ?? null;
    const layout = this.#layout;
    const heap = module.HEAPU8;
    const at = stringAt(heap, handle);
    if (layout === null || at === undefined || at.tag !== layout.tag) return undefined;
    const word = new DataView(heap.buffer, heap.byteOffset).getUint32(at.pointer + 4, true);
    const wide = (word & WIDE_BIT) !== 0;
    const length = word & ~WIDE_BIT;
    const from = at.pointer + layout.offset;
    if (from + (wide ? length * 2 : length) > heap.length) return undefined;
    return { pointer: at.pointer, length, wide, from };
  }

  /** Lets go of the held strings (before the context is freed). */
  dispose(): void {
    for (const held of this.#held.values()) held.handle.dispose();
    this.#held.clear();
    this.#names.clear();
  }
}

/** JSON of `[names | 0, start0, end0, start1, end1, …]` for the match at or after `from`. */
function execAt(plan: HostRegExpPlan, text: string, from: number): number | string {
  const search = plan.search;
  search.lastIndex = from;
  const match = search.exec(text);
  if (match === null) return NO_MATCH;
  const parts: unknown[] = [plan.names ?? 0];
  const spans = match.indices ?? [];
  for (let index = 0; index < match.length; index++) {
    const span = spans[index];
    if (span === undefined) parts.push(-1, -1);
    else parts.push(span[0], span[1]);
  }
  return JSON.stringify(parts);
}

/**
 * JSON of the start and end of every match of a global search from 0, stepping past an empty
 * match by a code unit (a code point with `u` or `v`), as `[Symbol.match]` does.
 */
function matchAll(plan: HostRegExpPlan, text: string): number | string {
  const all = plan.all;
  all.lastIndex = 0;
  const bounds: number[] = [];
  for (;;) {
    const match = all.exec(text);
    if (match === null) break;
    const start = match.index;
    const end = start + (match[0] as string).length;
    bounds.push(start, end);
    if (bounds.length > 2 * MAX_MATCHES) return NOT_HANDLED;
    if (end === start) all.lastIndex = advance(text, end, plan.fullUnicode);
  }
  return JSON.stringify(bounds);
}

/**
 * JSON of the start and end of each piece of `text.split(pattern, limit)` (an undefined limit is
 * none; a number is taken modulo 2^32, as ToUint32 does), by the spec's loop with a forward
 * search in place of a sticky match at every position (the first position where a sticky match
 * succeeds is where the search finds its match). A pattern with capture groups is left to
 * QuickJS (its pieces would interleave captures).
 */
function split(plan: HostRegExpPlan, text: string, limit: number | undefined): number | string {
  // An empty string splits by whether the pattern matches it at all: QuickJS's case.
  if (plan.captures > 0 || text.length === 0) return NOT_HANDLED;
  const most = limit === undefined ? 2 ** 32 - 1 : limit >>> 0;
  const bounds: number[] = [];
  if (most === 0) return '[]';
  const all = plan.all;
  let piece = 0;
  let at = 0;
  while (at < text.length) {
    all.lastIndex = at;
    const match = all.exec(text);
    if (match === null) break;
    const end = Math.min(match.index + (match[0] as string).length, text.length);
    if (end === piece) {
      at = advance(text, match.index, plan.fullUnicode);
      continue;
    }
    if (match.index >= text.length) break;
    bounds.push(piece, match.index);
    if (bounds.length / 2 === most) return JSON.stringify(bounds);
    piece = end;
    at = piece;
  }
  bounds.push(piece, text.length);
  return JSON.stringify(bounds);
}

/** AdvanceStringIndex. */
function advance(text: string, index: number, fullUnicode: boolean): number {
  if (!fullUnicode || index + 1 >= text.length) return index + 1;
  const code = text.charCodeAt(index);
  if (code < 0xd800 || code > 0xdbff) return index + 1;
  const next = text.charCodeAt(index + 1);
  return next >= 0xdc00 && next <= 0xdfff ? index + 2 : index + 1;
}
