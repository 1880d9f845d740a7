/** A character governed text may not contain, and where. */
export interface UnsafeCharacterFinding {
  /** `U+0000` style code of the character (both halves' codes for a broken pair). */
  codePoint: string;
  /** Index in UTF-16 code units. */
  index: number;
  what: 'NUL' | 'control character' | 'lone surrogate' | 'bidirectional control';
}

// Controls other than tab, line feed and carriage return; bidirectional embeddings, overrides and
// isolates, which make text display in an order other than the one the model reads.
function isControl(unit: number): boolean {
  return (
    (unit < 0x20 && unit !== 0x09 && unit !== 0x0a && unit !== 0x0d) ||
    (unit >= 0x7f && unit <= 0x9f)
  );
}

function isBidiControl(unit: number): boolean {
  return (unit >= 0x202a && unit <= 0x202e) || (unit >= 0x2066 && unit <= 0x2069);
}

function code(unit: number): string {
  return `U+${unit.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * The first character of `text` that governed text refuses: NUL, other control characters
 * (tab, `\n` and `\r` are fine), bidirectional controls, or a surrogate without its other half
 * (which storage would silently turn into U+FFFD).
 */
export function findUnsafeCharacter(text: string): UnsafeCharacterFinding | undefined {
  for (let index = 0; index < text.length; index += 1) {
    const unit = text.charCodeAt(index);
    if (unit >= 0xd800 && unit <= 0xdbff && isLowSurrogate(text.charCodeAt(index + 1))) {
      index += 1;
      continue;
    }
    const what = refusedKind(unit);
    if (what !== undefined) return { codePoint: code(unit), index, what };
  }
  return undefined;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/** What a UTF-16 unit is when governed text refuses it (a surrogate here has no partner). */
function refusedKind(unit: number): UnsafeCharacterFinding['what'] | undefined {
  if (unit >= 0xd800 && unit <= 0xdfff) return 'lone surrogate';
  if (unit === 0) return 'NUL';
  if (isControl(unit)) return 'control character';
  if (isBidiControl(unit)) return 'bidirectional control';
  return undefined;
}
