/** A character governed text may not contain, and where. */
export interface UnsafeCharacterFinding {
  /** `U+0000` style code of the character (both halves' codes for a broken pair). */
  codePoint: string;
  /** Index in UTF-16 code units. */
  index: number;
  what:
    | 'NUL'
    | 'control character'
    | 'lone surrogate'
    | 'bidirectional control'
    | 'tag character'
    | 'variation selector'
    | 'invisible character'
    | 'line or paragraph separator'
    | 'private-use or unassigned code point';
}

// Controls other than tab, line feed and carriage return.
function isControl(point: number): boolean {
  return (
    (point < 0x20 && point !== 0x09 && point !== 0x0a && point !== 0x0d) ||
    (point >= 0x7f && point <= 0x9f)
  );
}

// Embeddings, overrides, isolates and the direction marks (ALM, LRM, RLM): they make text display
// in an order other than the one the model reads, or carry nothing visible at all.
function isBidiControl(point: number): boolean {
  return (
    point === 0x061c ||
    point === 0x200e ||
    point === 0x200f ||
    (point >= 0x202a && point <= 0x202e) ||
    (point >= 0x2066 && point <= 0x2069)
  );
}

function isVariationSelector(point: number): boolean {
  return (
    (point >= 0xfe00 && point <= 0xfe0f) ||
    (point >= 0xe0100 && point <= 0xe01ef) ||
    (point >= 0x180b && point <= 0x180d) ||
    point === 0x180f
  );
}

const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/u;
const UNREADABLE = /[\p{Co}\p{Cn}]/u;
const PICTOGRAPH = /\p{Extended_Pictographic}/u;
const EMOJI_PART = /\p{Extended_Pictographic}|\p{Emoji_Modifier}|\uFE0F/u;
// Scripts whose spelling needs a zero-width non-joiner between two letters (Persian, Hindi…).
const NON_JOINER_SCRIPT =
  /[\p{Script=Arabic}\p{Script=Syriac}\p{Script=Devanagari}\p{Script=Bengali}\p{Script=Gurmukhi}\p{Script=Gujarati}\p{Script=Oriya}\p{Script=Tamil}\p{Script=Telugu}\p{Script=Kannada}\p{Script=Malayalam}\p{Script=Sinhala}]/u;

function code(point: number): string {
  return `U+${point.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * The first character of `text` that governed text refuses, because it is invisible, reorders
 * what is shown, or cannot be read the same way by a person and a model:
 *
 * - NUL and other control characters (tab, `\n` and `\r` are fine), U+2028/U+2029 separators;
 * - bidirectional controls and marks;
 * - Unicode tag characters (U+E0000–E007F), which models can read as ASCII while people see
 *   nothing;
 * - every other format or default-ignorable code point: zero-width space, joiners, word joiner,
 *   soft hyphen, BOM, invisible operators, Hangul fillers…;
 * - variation selectors, which can carry hidden bytes one per selector;
 * - private-use and unassigned code points, and a surrogate without its other half (which storage
 *   would silently turn into U+FFFD).
 *
 * Three uses are harmless and allowed: U+FE0E/U+FE0F right after an emoji (text or emoji
 * presentation), a zero-width joiner between two parts of an emoji sequence (👩‍💻), and a
 * zero-width non-joiner between two letters of a script whose spelling needs it (Persian, the
 * Indic scripts).
 */
export function findUnsafeCharacter(text: string): UnsafeCharacterFinding | undefined {
  const points = [...text];
  let index = 0;
  for (const [position, character] of points.entries()) {
    const point = character.codePointAt(0) ?? 0;
    const what = refusedKind(point, character);
    if (what !== undefined && !harmless(point, points[position - 1], points[position + 1])) {
      return { codePoint: code(point), index, what };
    }
    index += character.length;
  }
  return undefined;
}

function refusedKind(point: number, character: string): UnsafeCharacterFinding['what'] | undefined {
  if (point >= 0xd800 && point <= 0xdfff) return 'lone surrogate';
  if (point === 0) return 'NUL';
  if (isControl(point)) return 'control character';
  if (point === 0x2028 || point === 0x2029) return 'line or paragraph separator';
  if (isBidiControl(point)) return 'bidirectional control';
  if (point >= 0xe0000 && point <= 0xe007f) return 'tag character';
  if (isVariationSelector(point)) return 'variation selector';
  if (INVISIBLE.test(character)) return 'invisible character';
  if (UNREADABLE.test(character)) return 'private-use or unassigned code point';
  return undefined;
}

function harmless(point: number, before: string | undefined, after: string | undefined): boolean {
  if (before === undefined || after === undefined) {
    return (
      (point === 0xfe0e || point === 0xfe0f) && before !== undefined && PICTOGRAPH.test(before)
    );
  }
  if (point === 0xfe0e || point === 0xfe0f) return PICTOGRAPH.test(before);
  if (point === 0x200d) return EMOJI_PART.test(before) && PICTOGRAPH.test(after);
  if (point === 0x200c) {
    return NON_JOINER_SCRIPT.test(before) && NON_JOINER_SCRIPT.test(after);
  }
  return false;
}
