/**
 * Converts UTF-16 offsets (what JavaScript's regex engine reports) into code-point offsets (what
 * Python's `str` indexing uses), so `context[start:end]` in Python reads what a helper found.
 * They differ only after characters outside the Basic Multilingual Plane (emoji, some CJK), each
 * one UTF-16 surrogate pair but one Python character.
 */
export class CodePointOffsets {
  /** UTF-16 offsets of the second half of every surrogate pair, ascending. */
  readonly #lowHalves: number[] = [];

  constructor(text: string) {
    for (let at = 0; at < text.length - 1; at++) {
      const code = text.charCodeAt(at);
      if (code >= 0xd800 && code <= 0xdbff) {
        const next = text.charCodeAt(at + 1);
        if (next >= 0xdc00 && next <= 0xdfff) {
          this.#lowHalves.push(at + 1);
          at += 1;
        }
      }
    }
  }

  /** True when the text has no surrogate pairs (offsets are the same in both units). */
  get identity(): boolean {
    return this.#lowHalves.length === 0;
  }

  /** The code-point offset of UTF-16 offset `index`. */
  toCodePoints(index: number): number {
    if (this.identity) return index;
    // Pairs whose second half lies before `index` each count one unit too many.
    let low = 0;
    let high = this.#lowHalves.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if ((this.#lowHalves[mid] ?? 0) < index) low = mid + 1;
      else high = mid;
    }
    return index - low;
  }

  /** The UTF-16 offset of code-point offset `index`. */
  toUtf16(index: number): number {
    if (this.identity) return index;
    // Pair k starts at code point (lowHalf - 1 - k); each one starting before `index` adds a unit.
    let low = 0;
    let high = this.#lowHalves.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if ((this.#lowHalves[mid] ?? 0) - 1 - mid < index) low = mid + 1;
      else high = mid;
    }
    return index + low;
  }
}
