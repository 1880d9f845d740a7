import type { LiteralPattern } from './scan-operations.js';

/** What a regex source treats as syntax outside a character class. */
const SYNTAX = new Set('^$\\.*+?()[]{}|');
/** What a backslash may stand before to mean the character itself, in every regex mode. */
const ESCAPED_LITERALLY = new Set('^$\\.*+?()[]{}|/-');
/** Flags that change nothing about what literal text matches (`g` is always added). */
const NEUTRAL_FLAGS = /^[dgmsuv]*$/;
const SURROGATE = /[\ud800-\udfff]/;

/**
 * The literal text a helper's pattern (a source that already compiled with `flags`) stands for,
 * when it is nothing but characters to find: plain characters, and syntax characters each escaped
 * by a backslash (`\.`, `\(`). `undefined` for anything else (a class, a quantifier, an anchor, an
 * escape like `\d`, a case-insensitive or sticky search, an empty pattern), and for a surrogate in
 * a Unicode-mode pattern (that mode never matches half of a pair; `indexOf` would). The answer is
 * conservative: a pattern it refuses is still scanned, as a regex.
 */
export function literalPattern(source: string, flags: string): LiteralPattern | undefined {
  if (source.length === 0 || !NEUTRAL_FLAGS.test(flags)) return undefined;
  let literal = '';
  for (let at = 0; at < source.length; at++) {
    const character = source.charAt(at);
    if (character === '\\') {
      const escaped = source.charAt(at + 1);
      if (!ESCAPED_LITERALLY.has(escaped)) return undefined;
      literal += escaped;
      at += 1;
    } else if (SYNTAX.has(character)) {
      return undefined;
    } else {
      literal += character;
    }
  }
  if (/[uv]/.test(flags) && SURROGATE.test(literal)) return undefined;
  return { literal };
}
