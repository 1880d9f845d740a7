import { DEFINERS, NULLIFIERS, PRECEDENCE_CLAIMS } from './action-lexicon.js';
import { builtOnce } from './built-once.js';
import { foldedWords, visibleText } from './fold-text.js';
import { compileLexicon, findEntry, foldedWordSet } from './lexicon-matcher.js';
import {
  type ClauseWords,
  findLayerReference,
  findProtectedTarget,
} from './protected-references.js';
import { UNIVERSALS } from './reference-lexicon.js';
import { findSquashedOverride } from './squashed-override.js';

const tables = builtOnce(() => {
  const NULLIFYING = compileLexicon(NULLIFIERS);
  const PRECEDENCE = compileLexicon(PRECEDENCE_CLAIMS);
  const DEFINING = compileLexicon(DEFINERS);
  const UNIVERSAL_WORDS = foldedWordSet(UNIVERSALS);
  const UNSPACED_UNIVERSALS = compileLexicon(UNIVERSALS).unspaced;
  // Words pointing back at the previous sentence: "Those earlier rules? Waived, all of them."
  const BACK_REFERENCES = foldedWordSet([
    'them',
    'it',
    'they',
    'those',
    'these',
    'sie',
    'les',
    'los',
    'las',
    'li',
    'их',
    'они',
  ]);
  return {
    NULLIFYING,
    PRECEDENCE,
    DEFINING,
    UNIVERSAL_WORDS,
    UNSPACED_UNIVERSALS,
    BACK_REFERENCES,
  };
});
/** The longest clause read as the tail of the one before it when it points back. */
const MAX_TAIL_WORDS = 6;

// Clauses end at sentence punctuation followed by a space (so "0.5" and "e.g." stay whole), at
// CJK sentence punctuation, at a blank line, and where a new list item starts. A single line
// break inside a sentence does not end it: a sentence wrapped over lines is still one sentence.
const CLAUSE_END = /[.!?;]+(?=\s|$)|[。！？；]|\n[ \t]*\n|\n(?=[ \t]*(?:[-*•·+]|\d+[.)])[ \t])/u;

/** Why a text was judged to weaken layers 0–5, with the words that show it. */
export interface OverrideFinding {
  /**
   * `override`: a clause voids, overrides, disables or escapes a protected rule; `precedence`: a
   * clause ranks something above the layers or above everything; `obfuscated`: the same, with the
   * words spaced out or cut by punctuation; `definition`: a clause gives a protected rule a new
   * name or meaning, which another layer could then void under that name.
   */
  kind: 'override' | 'precedence' | 'obfuscated' | 'definition';
  /** The folded words that matched (lower case, confusables resolved). */
  excerpt: string;
}

/**
 * Finds a sentence that tries to void, override, outrank or disable layers 0–5, the
 * constitution, the safety rules or the agent's standing instructions. It reads structure, not
 * phrases: within one clause, a word that nullifies (ignore, void, override, no longer apply…)
 * together with a reference to a protected rule, in any order and voice ("layers 0 to 5 are
 * void", "disregard all previous layers"), or a precedence claim (outranks, takes precedence…)
 * together with any layer, protected rule or "everything". Text is folded first: NFKC,
 * invisible characters removed, look-alike letters read as the Latin letters they pass for
 * (`LOOK_ALIKE_LETTERS`), no accents or case, leet digits inside words read as letters. Spaced-out
 * letters and words cut by punctuation are caught on the text with all separators removed.
 *
 * Negated wording is not exempt ("never ignore the safety rules" is refused too): write rules
 * that mention the protected layers positively ("always follow the safety rules").
 */
export function findOverride(text: string): OverrideFinding | undefined {
  const visible = visibleText(text);
  let previous: ClauseWords | undefined;
  for (const clause of visible.split(CLAUSE_END)) {
    const words = foldedWords(clause);
    if (words.length === 0) continue;
    const current = { words, joined: words.join('') };
    const finding = judgeClause(current) ?? judgeTail(previous, current);
    if (finding !== undefined) return finding;
    previous = current;
  }
  const squashed = findSquashedOverride(foldedWords(visible));
  return squashed === undefined ? undefined : { kind: 'obfuscated', excerpt: squashed };
}

/** A short clause that nullifies "them" or "it", read together with the clause before it. */
function judgeTail(
  previous: ClauseWords | undefined,
  tail: ClauseWords,
): OverrideFinding | undefined {
  if (previous === undefined || tail.words.length > MAX_TAIL_WORDS) return undefined;
  if (!tail.words.some((word) => tables().BACK_REFERENCES.has(word))) return undefined;
  const words = [...previous.words, ...tail.words];
  const finding = judgeClause({ words, joined: words.join('') });
  return finding?.kind === 'override' ? finding : undefined;
}

function judgeClause(clause: ClauseWords): OverrideFinding | undefined {
  const { NULLIFYING, PRECEDENCE, DEFINING, UNIVERSAL_WORDS, UNSPACED_UNIVERSALS } = tables();
  const nullifier = findEntry(NULLIFYING, clause);
  if (nullifier !== undefined) {
    const target = findProtectedTarget(clause);
    if (target !== undefined) return { kind: 'override', excerpt: `${nullifier} … ${target}` };
  }
  const claim = findEntry(PRECEDENCE, clause);
  if (claim !== undefined) {
    const object =
      findProtectedTarget(clause) ??
      findLayerReference(clause)?.excerpt ??
      clause.words.find((word) => UNIVERSAL_WORDS.has(word)) ??
      UNSPACED_UNIVERSALS.find((word) => clause.joined.includes(word));
    if (object !== undefined) return { kind: 'precedence', excerpt: `${claim} … ${object}` };
  }
  const definer = findEntry(DEFINING, clause);
  if (definer !== undefined) {
    const target = findProtectedTarget(clause);
    if (target !== undefined) return { kind: 'definition', excerpt: `${definer} … ${target}` };
  }
  return undefined;
}
