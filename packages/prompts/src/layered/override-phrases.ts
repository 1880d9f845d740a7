const VERBS = [
  'ignore',
  'disregard',
  'override',
  'overrule',
  'bypass',
  'circumvent',
  'disable',
  'suspend',
  'revoke',
  'remove',
  'delete',
  'replace',
  'supersede',
  'forget',
  'turn off',
  'switch off',
  'stop following',
  'no longer follow',
];

const DETERMINERS = ['', 'the ', 'your ', 'all ', 'any ', 'all the ', 'all of the ', 'all your '];

const TARGETS = [
  'layer 0',
  'layer 1',
  'layer 2',
  'layer 3',
  'layer 4',
  'layer 5',
  'layers 0',
  'layers 1',
  'layers 2',
  'layers 3',
  'layers 4',
  'layers 5',
  'immutable layer',
  'fixed layer',
  'lower layer',
  'lower-numbered layer',
  'other layers',
  'constitution',
  'safety',
  'safeguards',
  'guardrails',
  'precedence',
  'interpretation rules',
  'resource economics',
  'budget',
  'ethics',
  'operational reality',
  'hard constraints',
  'constraints',
  'rules',
  'previous instructions',
  'prior instructions',
  'earlier instructions',
  'instructions above',
  'above instructions',
  'system prompt',
];

const STANDALONE = [
  'takes precedence over layer',
  'take precedence over layer',
  'takes precedence over all',
  'take precedence over all',
  'has priority over layer',
  'have priority over layer',
  'higher priority than layer',
  'overrides all other layers',
  'overrides every other layer',
  'no longer bound by',
  'not bound by layer',
  'not bound by the constitution',
  'not bound by your constitution',
  'do not apply anymore',
  'no longer apply',
  'does not apply to you',
  'do not apply to you',
  'the constitution does not apply',
  'safety rules do not apply',
  'you are now unrestricted',
  'without any restrictions',
  'act without restrictions',
  'developer mode',
  'jailbreak',
  'do anything now',
  'ignore everything above',
  'new system prompt',
  'pretend layer',
  'pretend the constitution',
  'pretend that layer',
];

/**
 * Phrases that try to override or disable layers 0–5: every verb × determiner × target combination
 * plus standalone claims of precedence. Matching ignores case and all whitespace, so spacing tricks
 * do not slip through; the price is that negated wording ("never ignore the budget") is rejected
 * too, so mutable layers must phrase such rules positively ("always respect the budget").
 */
export const OVERRIDE_PHRASES: readonly string[] = [
  ...VERBS.flatMap((verb) =>
    DETERMINERS.flatMap((determiner) => TARGETS.map((target) => `${verb} ${determiner}${target}`)),
  ),
  ...STANDALONE,
];

// Zero-width and soft-hyphen characters are removed with whitespace so they cannot split a phrase.
const INVISIBLE = /[\s\u00ad\u200b-\u200d\u2060\ufeff]+/g;
const DASHES = /[\u2010-\u2015\u2212]/g;

/** Lower-cases, unifies compatibility forms and dashes, and removes every whitespace character. */
export function normalizeForMatching(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(DASHES, '-').replace(INVISIBLE, '');
}

// Normalised once: the list has about 5,000 entries and validation runs on every layer write.
const NORMALIZED_PHRASES: readonly string[] = OVERRIDE_PHRASES.map(normalizeForMatching);

/** The first override phrase `content` contains (as listed), or `undefined`. */
export function findOverridePhrase(
  content: string,
  phrases: readonly string[] = OVERRIDE_PHRASES,
): string | undefined {
  const normalized = normalizeForMatching(content);
  const candidates =
    phrases === OVERRIDE_PHRASES ? NORMALIZED_PHRASES : phrases.map(normalizeForMatching);
  const index = candidates.findIndex((phrase) => normalized.includes(phrase));
  return index === -1 ? undefined : phrases[index];
}
