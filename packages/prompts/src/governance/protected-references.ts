import { builtOnce } from './built-once.js';
import { foldedWords, skeleton, visibleText } from './fold-text.js';
import { compileLexicon, findEntry, foldedWordSet, isQualifier } from './lexicon-matcher.js';
import {
  LAYER_QUALIFIERS,
  LAYER_WORDS,
  NUMBER_WORDS,
  PROTECTED_NAMES,
  RULE_NOUNS,
  RULE_QUALIFIERS,
} from './reference-lexicon.js';

/** The highest layer id that is immutable. */
const LAST_IMMUTABLE_LAYER = 5;
/** How many words before a noun a qualifier may stand ("all of your previous rules"). */
const QUALIFIER_REACH = 3;

const tables = builtOnce(() => {
  const SINGULAR_LAYER = foldedWordSet(LAYER_WORDS.singular);
  const PLURAL_LAYER = foldedWordSet(LAYER_WORDS.plural);
  const UNSPACED_LAYER = LAYER_WORDS.unspaced.map((word) => skeleton(visibleText(word)));
  const FOLDED_LAYER_QUALIFIERS = [...foldedWordSet(LAYER_QUALIFIERS)];
  const FOLDED_RULE_QUALIFIERS = [...foldedWordSet(RULE_QUALIFIERS)];
  const RULE_NOUN_STEMS = [...foldedWordSet(RULE_NOUNS)];
  const UNSPACED_RULE_NOUNS = compileLexicon(RULE_NOUNS).unspaced;
  const NAMES = compileLexicon(PROTECTED_NAMES);
  const NUMBERS = new Map(
    Object.entries(NUMBER_WORDS).map(([word, value]) => [foldedWords(word)[0] ?? word, value]),
  );
  // Words allowed between a layer word and its numbers: "layers 0 to 5", "Ebenen 0 bis 5".
  const CONNECTORS = foldedWordSet([
    'to',
    'through',
    'thru',
    'and',
    'or',
    'till',
    'until',
    'from',
    'bis',
    'und',
    'oder',
    'von',
    'à',
    'a',
    'et',
    'ou',
    'de',
    'al',
    'y',
    'e',
    'o',
    'tot',
    'en',
    'van',
    'do',
    'i',
    'lub',
    'od',
    'до',
    'и',
    'по',
    'или',
    'от',
    'nos',
    'num',
    'no',
  ]);
  return {
    SINGULAR_LAYER,
    PLURAL_LAYER,
    UNSPACED_LAYER,
    FOLDED_LAYER_QUALIFIERS,
    FOLDED_RULE_QUALIFIERS,
    RULE_NOUN_STEMS,
    UNSPACED_RULE_NOUNS,
    NAMES,
    NUMBERS,
    CONNECTORS,
  };
});

/** The words of one clause, and the same words joined without spaces (for CJK look-ups). */
export interface ClauseWords {
  words: readonly string[];
  joined: string;
}

/** What a clause refers to among the layers. */
export interface LayerReference {
  /** Some layer is named at all ("this layer", "layer 8"). */
  any: boolean;
  /** Layers 0–5 are named: by number, as plural "layers", or as "the immutable layer". */
  protected: boolean;
  excerpt: string;
}

/** The layer references in a clause. */
export function findLayerReference({ words, joined }: ClauseWords): LayerReference | undefined {
  const { PLURAL_LAYER, SINGULAR_LAYER, FOLDED_LAYER_QUALIFIERS, UNSPACED_LAYER } = tables();
  let found: LayerReference | undefined;
  for (const [index, word] of words.entries()) {
    const plural = PLURAL_LAYER.has(word);
    if (!plural && !SINGULAR_LAYER.has(word)) continue;
    const numbers = numbersAfter(words, index);
    const qualified = words
      .slice(Math.max(0, index - QUALIFIER_REACH), index)
      .some((before) => isQualifier(before, FOLDED_LAYER_QUALIFIERS));
    const isProtected =
      numbers.length > 0
        ? numbers.some((value) => value <= LAST_IMMUTABLE_LAYER)
        : plural || qualified;
    const excerpt = words.slice(index, index + 1 + numbers.length).join(' ');
    if (isProtected) return { any: true, protected: true, excerpt };
    found ??= { any: true, protected: false, excerpt };
  }
  const unspaced = UNSPACED_LAYER.find((word) => joined.includes(word));
  if (unspaced !== undefined) {
    const digits = (joined.match(/\d+/g) ?? []).map(Number);
    const isProtected =
      digits.length === 0 || digits.some((value) => value <= LAST_IMMUTABLE_LAYER);
    return { any: true, protected: isProtected, excerpt: unspaced };
  }
  return found;
}

function numbersAfter(words: readonly string[], index: number): number[] {
  const { NUMBERS, CONNECTORS } = tables();
  const numbers: number[] = [];
  for (let next = index + 1; next < words.length && next <= index + 6; next += 1) {
    const word = words[next] ?? '';
    if (/^\d+$/.test(word)) numbers.push(Number(word));
    else if (NUMBERS.has(word)) numbers.push(NUMBERS.get(word) ?? Number.NaN);
    else if (!CONNECTORS.has(word)) break;
  }
  return numbers;
}

/**
 * A reference in the clause to something layers 0–5 protect: the immutable layers, the
 * constitution, the safety or ethics rules, the system prompt, or the agent's standing rules
 * ("all previous instructions", "your rules"). `undefined` when there is none.
 */
export function findProtectedTarget(clause: ClauseWords): string | undefined {
  const layer = findLayerReference(clause);
  if (layer?.protected === true) return layer.excerpt;
  const name = findEntry(tables().NAMES, clause);
  if (name !== undefined) return name;
  return findQualifiedRule(clause);
}

function findQualifiedRule({ words, joined }: ClauseWords): string | undefined {
  const { RULE_NOUN_STEMS, FOLDED_RULE_QUALIFIERS, UNSPACED_RULE_NOUNS } = tables();
  for (const [index, word] of words.entries()) {
    if (!RULE_NOUN_STEMS.some((stem) => word.startsWith(stem))) continue;
    const before = words.slice(Math.max(0, index - QUALIFIER_REACH), index);
    if (before.some((candidate) => isQualifier(candidate, FOLDED_RULE_QUALIFIERS))) {
      return [...before, word].join(' ');
    }
  }
  return UNSPACED_RULE_NOUNS.find((noun) => joined.includes(noun));
}
