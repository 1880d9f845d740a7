/**
 * A cheap, deterministic token estimate (one token per four characters, rounded up) used by
 * the scripted model and the fake servers. Real tokenisers differ; tests only need numbers
 * that grow with the text and are reproducible.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
