import { NULLIFIERS } from './action-lexicon.js';
import { builtOnce } from './built-once.js';
import { foldedWords } from './fold-text.js';
import { compileLexicon } from './lexicon-matcher.js';
import { LAYER_WORDS, PROTECTED_NAMES, RULE_NOUNS, RULE_QUALIFIERS } from './reference-lexicon.js';

/** Shorter stems ("nul", "omit") are too common inside unrelated letter runs. */
const MIN_SQUASHED_STEM = 4;
const LAST_IMMUTABLE_LAYER = 5;

function alternation(entries: readonly string[], { min = 1 }: { min?: number } = {}): string {
  const folded = compileLexicon(entries)
    .spaced.map((words) => words.join(''))
    .filter((entry) => entry.length >= min && /^\p{L}+$/u.test(entry));
  const unique = [...new Set(folded)].sort((a, b) => b.length - a.length);
  return unique.map((entry) => entry.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
}

const tables = builtOnce(() => {
  const NULL = alternation(NULLIFIERS, { min: MIN_SQUASHED_STEM });
  const FILLER = alternation([
    ...RULE_QUALIFIERS,
    'of',
    'my',
    'our',
    'its',
    'their',
    'lower',
    'fixed',
    'first',
  ]);
  const NAMES = alternation(PROTECTED_NAMES);
  const PLURAL_LAYERS = alternation(LAYER_WORDS.plural);
  const SINGULAR_LAYERS = alternation(LAYER_WORDS.singular);
  const NOUNS = alternation(RULE_NOUNS);

  // Sticky and with indices: tried at each word start; the target must start a word as well.
  const NAMED = new RegExp(
    `(?:${NULL})\\p{L}{0,4}?(?:${FILLER}){0,3}?(${NAMES}|${PLURAL_LAYERS}|${SINGULAR_LAYERS})(\\d*)`,
    'duy',
  );
  const QUALIFIED = new RegExp(`(?:${NULL})\\p{L}{0,4}?(?:${FILLER}){1,3}?(${NOUNS})`, 'duy');
  const PLURAL_SET = new Set(LAYER_WORDS.plural.flatMap((word) => foldedWords(word)));
  const SINGULAR_SET = new Set(LAYER_WORDS.singular.flatMap((word) => foldedWords(word)));
  return { NAMED, QUALIFIED, PLURAL_SET, SINGULAR_SET };
});

/**
 * Looks for a nullifying word directly followed (after at most three words such as "all the")
 * by a protected target, in the text with every separator removed: this catches "i g n o r e
 * t h e  c o n s t i t u t i o n", "ig-nore. the. con stitution" and other spellings that cut
 * words apart. Matches start only where a word started, so "avoid" does not contain "void".
 */
export function findSquashedOverride(words: readonly string[]): string | undefined {
  const starts = new Set<number>();
  let squashed = '';
  for (const word of words) {
    starts.add(squashed.length);
    squashed += word;
  }
  for (const start of starts) {
    const found = matchNamed(squashed, start, starts) ?? matchQualified(squashed, start, starts);
    if (found !== undefined) return found;
  }
  return undefined;
}

function matchNamed(squashed: string, start: number, starts: ReadonlySet<number>) {
  const { NAMED, PLURAL_SET, SINGULAR_SET } = tables();
  NAMED.lastIndex = start;
  const match = NAMED.exec(squashed);
  const targetStart = match?.indices?.[1]?.[0];
  if (match === null || targetStart === undefined || !starts.has(targetStart)) return undefined;
  const target = match[1] ?? '';
  const digits = match[2] ?? '';
  const isLayer = PLURAL_SET.has(target) || SINGULAR_SET.has(target);
  if (isLayer && !protectedLayerDigits(digits, PLURAL_SET.has(target))) return undefined;
  return match[0];
}

function matchQualified(squashed: string, start: number, starts: ReadonlySet<number>) {
  const { QUALIFIED } = tables();
  QUALIFIED.lastIndex = start;
  const match = QUALIFIED.exec(squashed);
  const targetStart = match?.indices?.[1]?.[0];
  if (match === null || targetStart === undefined || !starts.has(targetStart)) return undefined;
  return match[0];
}

/**
 * Whether the digits squashed after a layer word name an immutable layer: "1" and "05" (a range
 * squashed together) do, "10" and "69" do not. No digits: only a plural ("layers") does.
 */
function protectedLayerDigits(digits: string, plural: boolean): boolean {
  if (digits === '') return plural;
  const value = Number(digits);
  if (value <= 10) return value <= LAST_IMMUTABLE_LAYER;
  return [...digits].some((digit) => Number(digit) <= LAST_IMMUTABLE_LAYER);
}
