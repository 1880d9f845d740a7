import { Buffer } from 'node:buffer';
import { readTextInto, serveText, type TextLane, type TextStream } from './text-stream.js';

/**
 * Context strings at least this long travel as `SharedText`: encoded once on the host, then read
 * by every thread that needs them (the engine copies the bytes into WASM memory, the scan worker
 * decodes them) instead of each getting its own structured-clone copy, plus the transient buffer
 * every clone of a string goes through.
 */
export const SHARED_TEXT_MIN_CHARS = 1_048_576;

/**
 * A string payload as UTF-8 bytes in shared memory: the one copy of the payload that threads of
 * this process pass around. Plain data, so it crosses `postMessage` without being copied.
 */
export interface SharedBytes {
  kind: 'shared-text';
  /** The UTF-8 bytes, exactly (the buffer is no longer). */
  bytes: SharedArrayBuffer;
  /** Length of the string in UTF-16 code units (its JavaScript `length`). */
  length: number;
}

/**
 * Where the thread that made a `StreamedText` keeps its string (in a holder object that serving
 * watches through a weak reference): a clone leaves a symbol-keyed property behind.
 */
const HELD_TEXT = Symbol('held text');

/**
 * A string payload lent piece by piece by the thread that holds it (see `text-stream.ts`): no
 * full-size copy of it exists for passing it between threads. On the thread that made it, the
 * object also holds the string itself (under a symbol key, which `postMessage` does not copy), and
 * serving the pieces lasts as long as that object lives.
 */
export interface StreamedText {
  kind: 'shared-text';
  stream: TextStream;
  /** Length of the string in UTF-16 code units (its JavaScript `length`). */
  length: number;
  /**
   * True when a character is above U+00FF: QuickJS then stores the string as UTF-16, and the
   * pieces carry UTF-16LE code units (else Latin-1 bytes).
   */
  wide: boolean;
  [HELD_TEXT]?: { readonly text: string };
}

/** A long string payload, passed between threads without structured-clone copies of it. */
export type SharedText = SharedBytes | StreamedText;

const NUL = '\u0000';
const WIDE_CHARACTER = /[\u0100-\uffff]/;

/**
 * `text` as a `SharedText`, or `undefined` when it stays a plain string: shorter than
 * `minChars`, or holding a NUL (QuickJS would cut the string there) or a lone surrogate (UTF-8
 * cannot carry one); such strings go the JSON way, which escapes both.
 */
export function toSharedText(
  text: string,
  minChars: number = SHARED_TEXT_MIN_CHARS,
): SharedBytes | undefined {
  if (!sharable(text, minChars)) return undefined;
  const bytes = new SharedArrayBuffer(Buffer.byteLength(text, 'utf8'));
  new TextEncoder().encodeInto(text, new Uint8Array(bytes));
  return { kind: 'shared-text', bytes, length: text.length };
}

/**
 * `text` as a `StreamedText` served from this thread, or `undefined` when it is shorter than
 * `minChars` and stays a plain string. Keep the returned object for as long as other threads may
 * read the text: serving ends once it is collected. Unlike `toSharedText`, it makes no copy of
 * the text (the other threads get it piece by piece, see `text-stream.ts`), and it takes any
 * text: the pieces carry code units, so a NUL or a lone surrogate arrives as it is. Nothing here
 * reads the whole text: V8 answers `wide` at once for a one-byte string, and stops at the first
 * wide character of another.
 */
export function toStreamedText(
  text: string,
  options: {
    minChars?: number;
    /** For tests: smaller pieces than `PIECE_BYTES`. */
    pieceBytes?: number;
  } = {},
): StreamedText | undefined {
  if (text.length < (options.minChars ?? SHARED_TEXT_MIN_CHARS)) return undefined;
  const holder = { text };
  const wide = WIDE_CHARACTER.test(text);
  return {
    kind: 'shared-text',
    stream: serveText(holder, (held) => held.text, {
      length: text.length,
      encoding: wide ? 'utf16le' : 'latin1',
      pieceBytes: options.pieceBytes,
    }),
    length: text.length,
    wide,
    [HELD_TEXT]: holder,
  };
}

/** Long enough, and text QuickJS keeps whole and UTF-8 can carry. */
function sharable(text: string, minChars: number): boolean {
  if (text.length < minChars) return false;
  return !text.includes(NUL) && (text as unknown as { isWellFormed(): boolean }).isWellFormed();
}

/** True for a `SharedText` (a JSON value never holds a SharedArrayBuffer). */
export function isSharedText(value: unknown): value is SharedText {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<SharedBytes> & Partial<StreamedText>;
  if (candidate.kind !== 'shared-text') return false;
  if (candidate.bytes instanceof SharedArrayBuffer) return true;
  const lanes = candidate.stream?.lanes;
  return lanes?.engine instanceof SharedArrayBuffer && lanes.scan instanceof SharedArrayBuffer;
}

/**
 * Writes a `StreamedText`'s characters into `target` as a QuickJS string keeps them, piece by
 * piece through the engine lane: Latin-1 bytes, or UTF-16LE code units when it is `wide`;
 * `target` is exactly that long. Nothing is decoded or converted on the reading thread. Blocks
 * like `readTextInto` (never call it on the thread that holds the text).
 */
export function writeGuestCharacters(shared: StreamedText, target: Uint8Array): void {
  readTextInto(shared.stream, 'engine', target);
}

/** The string itself, on the thread that made the `SharedText` and holds it; else undefined. */
export function heldSharedText(shared: SharedText): string | undefined {
  return 'bytes' in shared ? undefined : shared[HELD_TEXT]?.text;
}

/** The string a `SharedText` holds (a fresh copy in the calling thread's heap). */
export function readSharedText(shared: SharedText, lane: TextLane = 'scan'): string {
  if (!('bytes' in shared) && shared[HELD_TEXT] !== undefined) return shared[HELD_TEXT].text;
  if (!('bytes' in shared)) {
    const { encoding } = shared.stream;
    const bytes = Buffer.allocUnsafeSlow(encoding === 'latin1' ? shared.length : shared.length * 2);
    readTextInto(shared.stream, lane, bytes);
    return bytes.toString(encoding);
  }
  const bytes = Buffer.from(shared.bytes);
  // All ASCII (as many bytes as characters): latin1 decodes it without UTF-8 validation.
  return bytes.length === shared.length ? bytes.toString('latin1') : bytes.toString('utf8');
}
