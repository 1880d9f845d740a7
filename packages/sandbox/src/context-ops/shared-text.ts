import { Buffer } from 'node:buffer';

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
export interface SharedText {
  kind: 'shared-text';
  /** The UTF-8 bytes, exactly (the buffer is no longer). */
  bytes: SharedArrayBuffer;
  /** Length of the string in UTF-16 code units (its JavaScript `length`). */
  length: number;
}

const NUL = '\u0000';

/**
 * `text` as a `SharedText`, or `undefined` when it stays a plain string: shorter than
 * `minChars`, or holding a NUL (QuickJS would cut the string there) or a lone surrogate (UTF-8
 * cannot carry one); such strings go the JSON way, which escapes both.
 */
export function toSharedText(
  text: string,
  minChars: number = SHARED_TEXT_MIN_CHARS,
): SharedText | undefined {
  if (text.length < minChars) return undefined;
  if (text.includes(NUL) || !(text as unknown as { isWellFormed(): boolean }).isWellFormed()) {
    return undefined;
  }
  const bytes = new SharedArrayBuffer(Buffer.byteLength(text, 'utf8'));
  new TextEncoder().encodeInto(text, new Uint8Array(bytes));
  return { kind: 'shared-text', bytes, length: text.length };
}

/** True for a `SharedText` (a JSON value never holds a SharedArrayBuffer). */
export function isSharedText(value: unknown): value is SharedText {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Partial<SharedText>).kind === 'shared-text' &&
    (value as Partial<SharedText>).bytes instanceof SharedArrayBuffer
  );
}

/** The string a `SharedText` holds (a fresh copy in the calling thread's heap). */
export function readSharedText(shared: SharedText): string {
  const bytes = Buffer.from(shared.bytes);
  // All ASCII (as many bytes as characters): latin1 decodes it without UTF-8 validation.
  return bytes.length === shared.length ? bytes.toString('latin1') : bytes.toString('utf8');
}
