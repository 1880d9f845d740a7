/**
 * Characters compared at once by slice equality: V8 compares flat strings natively (memcmp), many
 * times faster than a loop over `charCodeAt`, so long equal runs are measured a chunk at a time
 * and only the chunk holding the first difference character by character.
 */
const CHUNK_CHARS = 512;

/** How many characters from `a[aStart]` and `b[bStart]` on are equal, at most `limit`. */
export function commonPrefixLength(
  a: string,
  aStart: number,
  b: string,
  bStart: number,
  limit: number,
): number {
  let length = 0;
  while (
    length + CHUNK_CHARS <= limit &&
    a.slice(aStart + length, aStart + length + CHUNK_CHARS) ===
      b.slice(bStart + length, bStart + length + CHUNK_CHARS)
  ) {
    length += CHUNK_CHARS;
  }
  while (length < limit && a.charCodeAt(aStart + length) === b.charCodeAt(bStart + length)) {
    length++;
  }
  return length;
}

/** How many characters before `a[aEnd]` and `b[bEnd]` are equal, at most `limit`. */
export function commonSuffixLength(
  a: string,
  aEnd: number,
  b: string,
  bEnd: number,
  limit: number,
): number {
  let length = 0;
  while (
    length + CHUNK_CHARS <= limit &&
    a.slice(aEnd - length - CHUNK_CHARS, aEnd - length) ===
      b.slice(bEnd - length - CHUNK_CHARS, bEnd - length)
  ) {
    length += CHUNK_CHARS;
  }
  while (length < limit && a.charCodeAt(aEnd - length - 1) === b.charCodeAt(bEnd - length - 1)) {
    length++;
  }
  return length;
}
