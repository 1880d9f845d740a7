/**
 * Characters compared at once by slice equality: V8 compares flat strings natively (memcmp), many
 * times faster than a loop over `charCodeAt`, so long equal runs are measured a chunk at a time
 * and only the chunk holding the first difference character by character.
 */
const CHUNK_CHARS = 512;

/** A position in a string. */
export interface TextAt {
  text: string;
  at: number;
}

/** How many characters from `a.at` and `b.at` on are equal, at most `limit`. */
export function commonPrefixLength(a: TextAt, b: TextAt, limit: number): number {
  // A slice usually runs to the end of what is compared: one comparison settles that.
  if (a.text.slice(a.at, a.at + limit) === b.text.slice(b.at, b.at + limit)) return limit;
  let length = 0;
  while (
    length + CHUNK_CHARS <= limit &&
    a.text.slice(a.at + length, a.at + length + CHUNK_CHARS) ===
      b.text.slice(b.at + length, b.at + length + CHUNK_CHARS)
  ) {
    length += CHUNK_CHARS;
  }
  while (length < limit && a.text.charCodeAt(a.at + length) === b.text.charCodeAt(b.at + length)) {
    length++;
  }
  return length;
}

/** How many characters just before `a.at` and `b.at` are equal, at most `limit`. */
export function commonSuffixLength(a: TextAt, b: TextAt, limit: number): number {
  if (a.text.slice(a.at - limit, a.at) === b.text.slice(b.at - limit, b.at)) return limit;
  let length = 0;
  while (
    length + CHUNK_CHARS <= limit &&
    a.text.slice(a.at - length - CHUNK_CHARS, a.at - length) ===
      b.text.slice(b.at - length - CHUNK_CHARS, b.at - length)
  ) {
    length += CHUNK_CHARS;
  }
  while (
    length < limit &&
    a.text.charCodeAt(a.at - length - 1) === b.text.charCodeAt(b.at - length - 1)
  ) {
    length++;
  }
  return length;
}
