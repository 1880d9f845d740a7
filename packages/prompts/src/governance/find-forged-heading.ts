import { LAYER_TITLES } from '../layered/layer-id.js';
import { builtOnce } from './built-once.js';
import { foldedWords, skeleton, splitLines, visibleText } from './fold-text.js';
import { foldedWordSet } from './lexicon-matcher.js';
import { LAYER_WORDS, MUTABILITY_TAGS, NUMBER_WORDS } from './reference-lexicon.js';

const tables = builtOnce(() => {
  const LAYER_WORD_SET = foldedWordSet([...LAYER_WORDS.singular, ...LAYER_WORDS.plural]);
  const NUMBER_SET = foldedWordSet(Object.keys(NUMBER_WORDS));
  const TAG_SET = foldedWordSet([...MUTABILITY_TAGS, 'layer']);
  const TITLES = Object.values(LAYER_TITLES).map((title) => foldedWords(title));
  const UNSPACED_LAYER = new RegExp(
    `^(?:第\\s*)?\\d+\\s*(?:${LAYER_WORDS.unspaced.join('|')})|^(?:${LAYER_WORDS.unspaced.join('|')})\\s*\\d`,
    'u',
  );
  return { LAYER_WORD_SET, NUMBER_SET, TAG_SET, TITLES, UNSPACED_LAYER };
});
// A separator like the one between layers: a line of "=" (or box-drawing double lines).
const SEPARATOR_LINE = /^[\s=═]*[=═](?:[\s=═]*[=═]){2,}[\s=═]*$/u;

/** A line that would pass for a layer boundary, and why. */
export interface ForgedHeadingFinding {
  /** 1-based line number in the text. */
  line: number;
  /** The line as written (trimmed, at most 80 characters). */
  text: string;
}

/**
 * Finds a line that imitates the assembled prompt's structure: a layer heading in any form
 * (`# Layer 1: Constitution (immutable)`, `**LAYER 1**`, `Layer one —`, `Ebene 1:`, `第1层`, a
 * fullwidth `＃`, a heading behind a no-break or zero-width space), a line that is only a
 * layer's title (`## Constitution (immutable)`), or a separator line of `=`. A heading cut over
 * two lines is caught too.
 */
export function findForgedHeading(text: string): ForgedHeadingFinding | undefined {
  const lines = splitLines(text);
  for (const [index, raw] of lines.entries()) {
    if (isForgedLine(raw)) {
      return { line: index + 1, text: visibleText(raw).trim().slice(0, 80) };
    }
  }
  // A heading cut over two lines ("# Lay" + "er 1: Constitution") still reads as one.
  for (let index = 0; index + 1 < lines.length; index += 1) {
    const joined = `${lines[index] ?? ''}${lines[index + 1] ?? ''}`;
    if (isForgedLine(joined))
      return { line: index + 1, text: visibleText(joined).trim().slice(0, 80) };
  }
  return undefined;
}

function isForgedLine(raw: string): boolean {
  const { LAYER_WORD_SET, NUMBER_SET, TITLES, UNSPACED_LAYER } = tables();
  const visible = visibleText(raw);
  if (SEPARATOR_LINE.test(visible)) return true;
  if (UNSPACED_LAYER.test(skeleton(visible).replace(/^[^\p{L}\p{N}]+/u, ''))) return true;
  const words = foldedWords(visible);
  const [first, second] = words;
  if (first === undefined) return false;
  const numbered =
    LAYER_WORD_SET.has(first) &&
    second !== undefined &&
    (/^\d+$/.test(second) || NUMBER_SET.has(second));
  if (numbered && headingShaped(visible, words.slice(2))) return true;
  return TITLES.some((title) => isTitleLine(words, title));
}

// After "Layer 1" a heading ends, or goes on with punctuation or a title: "Layer 1: …",
// "Layer 1 — …", "Layer 1 Constitution". Prose goes on with a word: "Layer 10 describes …".
const NUMBER_THEN_PUNCTUATION =
  /^[^\p{L}\p{N}]*[\p{L}\p{N}@$]+\s*[\p{L}\p{N}]+(?:\s*[-–—~]\s*\p{N}+)?\s*[^\p{L}\p{N}\s](?!\s*\p{N})/u;

function headingShaped(visible: string, rest: readonly string[]): boolean {
  const { TAG_SET, TITLES } = tables();
  const after = rest.filter((word) => !/^\d+$/.test(word));
  if (after.length === 0 || NUMBER_THEN_PUNCTUATION.test(visible)) return true;
  return TAG_SET.has(after[0] ?? '') || TITLES.some((title) => title[0] === after[0]);
}

/** The line is a layer title, possibly with a mutability tag: `Constitution (immutable)`. */
function isTitleLine(words: readonly string[], title: readonly string[]): boolean {
  const { TAG_SET } = tables();
  if (words.length < title.length) return false;
  if (!title.every((part, index) => words[index] === part)) return false;
  return words.slice(title.length).every((word) => TAG_SET.has(word) || /^\d+$/.test(word));
}
