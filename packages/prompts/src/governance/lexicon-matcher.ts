import { foldedWords, skeleton, visibleText } from './fold-text.js';

const UNSPACED_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/** A lexicon folded once: word sequences for spaced scripts, substrings for the others. */
export interface CompiledLexicon {
  /** Each entry's folded words; the last word matches as a prefix. */
  spaced: readonly (readonly string[])[];
  /** Entries in scripts written without spaces, folded, matched as substrings. */
  unspaced: readonly string[];
}

/** Folds every entry the way text is folded, once. */
export function compileLexicon(entries: readonly string[]): CompiledLexicon {
  const spaced: string[][] = [];
  const unspaced: string[] = [];
  for (const entry of entries) {
    if (UNSPACED_SCRIPT.test(entry)) unspaced.push(skeleton(visibleText(entry)));
    else {
      const words = foldedWords(entry);
      if (words.length > 0) spaced.push(words);
    }
  }
  return { spaced, unspaced };
}

/** The number of words the entry starting at `index` covers, or 0 when none starts there. */
export function matchAt(lexicon: CompiledLexicon, words: readonly string[], index: number): number {
  for (const entry of lexicon.spaced) {
    if (entryMatches(entry, words, index)) return entry.length;
  }
  return 0;
}

function entryMatches(entry: readonly string[], words: readonly string[], index: number): boolean {
  for (const [offset, part] of entry.entries()) {
    const word = words[index + offset];
    if (word === undefined) return false;
    const last = offset === entry.length - 1;
    if (last ? !word.startsWith(part) : word !== part) return false;
  }
  return true;
}

/** Where an entry first matches in `words` (`joined` is the same words without spaces). */
export function findEntry(
  lexicon: CompiledLexicon,
  { words, joined }: { words: readonly string[]; joined: string },
): string | undefined {
  for (let index = 0; index < words.length; index += 1) {
    const length = matchAt(lexicon, words, index);
    if (length > 0) return words.slice(index, index + length).join(' ');
  }
  return lexicon.unspaced.find((entry) => joined.includes(entry));
}

/** A set of single words folded like text, for exact look-ups. */
export function foldedWordSet(entries: readonly string[]): ReadonlySet<string> {
  return new Set(entries.flatMap((entry) => foldedWords(entry)));
}

/**
 * Whether `word` is one of `qualifiers`: short ones (three letters or fewer, such as `all`, `the`)
 * must match exactly, longer ones are stems (`previous` also covers `previously`).
 */
export function isQualifier(word: string, qualifiers: readonly string[]): boolean {
  return qualifiers.some((qualifier) =>
    qualifier.length <= 3 ? word === qualifier : word.startsWith(qualifier),
  );
}
