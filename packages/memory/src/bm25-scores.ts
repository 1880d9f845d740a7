const TERM_PATTERN = /[\p{L}\p{N}]+/gu;
/** Standard BM25 constants: term-frequency saturation and length normalisation. */
const K1 = 1.2;
const B = 0.75;

/** Lowercased word and number runs; punctuation and whitespace separate terms. */
export function tokenize(text: string): string[] {
  return text.toLowerCase().match(TERM_PATTERN) ?? [];
}

/**
 * BM25 score of every document against `query`, in document order. Statistics (document
 * frequency, average length) come from `documents` alone, so scores are relative to the set
 * being ranked; a document sharing no term with the query scores 0.
 */
export function bm25Scores(query: string, documents: readonly string[]): number[] {
  const queryTerms = [...new Set(tokenize(query))];
  if (queryTerms.length === 0 || documents.length === 0) return documents.map(() => 0);
  const tokenized = documents.map(tokenize);
  const averageLength = tokenized.reduce((sum, terms) => sum + terms.length, 0) / documents.length;
  const documentFrequency = new Map<string, number>();
  for (const terms of tokenized) {
    for (const term of new Set(terms)) {
      documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
    }
  }
  return tokenized.map((terms) => {
    const counts = new Map<string, number>();
    for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
    let score = 0;
    for (const term of queryTerms) {
      const frequency = counts.get(term) ?? 0;
      if (frequency === 0) continue;
      const df = documentFrequency.get(term) ?? 0;
      const idf = Math.log(1 + (documents.length - df + 0.5) / (df + 0.5));
      const lengthRatio = averageLength === 0 ? 1 : terms.length / averageLength;
      score += (idf * frequency * (K1 + 1)) / (frequency + K1 * (1 - B + B * lengthRatio));
    }
    return score;
  });
}
