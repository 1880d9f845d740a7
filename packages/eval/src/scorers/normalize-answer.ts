/**
 * Normalises free text for lenient comparison: lower case, punctuation and the articles
 * a/an/the removed, whitespace collapsed. Digits and letters of any script are kept.
 */
export function normalizeAnswer(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKC')
    .replace(/[^\p{L}\p{N}\s]/gu, ' ')
    .replace(/\b(a|an|the)\b/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}
