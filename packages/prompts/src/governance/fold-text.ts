import { replaceLookAlikes } from './look-alike-table.js';

// Format characters (zero-width space and joiners, soft hyphen, bidi controls, tag characters…)
// and the other default-ignorable code points (variation selectors, Hangul fillers…) render as
// nothing, so they can sit inside a word without changing how it reads.
const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;
const LINE_BREAKS = /\r\n|[\r\n\v\f\u0085\u2028\u2029]/;
const COMBINING_MARKS = /\p{M}/gu;

/** Characters that stand for letters in "leet" spellings, when they sit inside a word. */
const LEET: Readonly<Record<string, string>> = {
  '0': 'o',
  '1': 'i',
  '2': 'z',
  '3': 'e',
  '4': 'a',
  '5': 's',
  '6': 'g',
  '7': 't',
  '8': 'b',
  '9': 'g',
  '@': 'a',
  $: 's',
  '!': 'i',
  '+': 't',
  '€': 'e',
};

/**
 * Removes every invisible character (format and other default-ignorable code points) after
 * NFKC, which already turns fullwidth and other compatibility forms (`＃`, `ｌａｙｅｒ`, `𝐢`) and
 * no-break spaces into their plain forms.
 */
export function visibleText(text: string): string {
  return text.normalize('NFKC').replace(INVISIBLE, '');
}

/** `text` cut into lines at every line break Unicode knows, not only `\n`. */
export function splitLines(text: string): string[] {
  return text.split(LINE_BREAKS);
}

/**
 * The skeleton of `text` for comparison: each look-alike letter from `LOOK_ALIKE_LETTERS`
 * (small capitals, Greek, Cyrillic, Armenian, Cherokee…) read as the Latin letter it passes for,
 * accents and other combining marks dropped, lower case, and `l` read as `i` (the two are
 * confused in many fonts, and `I` is both). So "Ignоre" with a Cyrillic о, "ΙGNORE" with a Greek
 * Ι, "ɪɢɴᴏʀᴇ" in small capitals and "ïgnöre" all compare equal to "ignore". Call it on
 * `visibleText` (NFKC has already folded fullwidth and mathematical letters). ASCII digits stay
 * digits (layer numbers matter). The result is for comparison only, never for display.
 */
export function skeleton(text: string): string {
  const marked = replaceLookAlikes(text.normalize('NFD'));
  return replaceLookAlikes(marked.replace(COMBINING_MARKS, '').toLowerCase()).replace(/l/g, 'i');
}

// A "word" for matching: letters, digits and the leet symbols, so `d1sr3g@rd` stays one word.
const WORD = /[\p{L}\p{N}@$!+€]+/gu;
const HAS_LETTER = /\p{L}/u;
const TRAILING_DIGITS = /^([^0-9]*\p{L})([0-9]+)$/u;

/**
 * The words of `text` folded for matching: visible characters only, skeletons, and leet digits
 * and symbols inside words read as letters (`1gn0r3` → `ignore`). A number standing alone stays a
 * number, and so do digits ending a word (`layer1` → `layer`, `1`), because layer numbers matter.
 */
export function foldedWords(text: string): string[] {
  const words: string[] = [];
  for (const raw of skeleton(visibleText(text)).match(WORD) ?? []) {
    if (!HAS_LETTER.test(raw)) {
      const digits = raw.replace(/[^0-9]/g, '');
      if (digits !== '') words.push(digits);
      continue;
    }
    const trailing = TRAILING_DIGITS.exec(raw);
    const letters = trailing?.[1] ?? raw;
    words.push(unleet(letters));
    if (trailing?.[2] !== undefined) words.push(trailing[2]);
  }
  return words.filter((word) => word !== '');
}

function unleet(word: string): string {
  let result = '';
  for (const character of word) result += LEET[character] ?? character;
  return skeleton(result);
}

/** A lexicon entry folded exactly like text, so both sides of a comparison agree. */
export function foldPhrase(phrase: string): string[] {
  return foldedWords(phrase);
}
