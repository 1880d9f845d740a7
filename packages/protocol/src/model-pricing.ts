import { z } from 'zod';

const perMTok = z.number().nonnegative();

const bandFields = {
  inputPerMTok: perMTok,
  outputPerMTok: perMTok,
  /** Writing a 5-minute cache entry. @default 1.25 × input */
  cacheWrite5mPerMTok: perMTok.optional(),
  /** Writing a 1-hour cache entry. @default 2 × input */
  cacheWrite1hPerMTok: perMTok.optional(),
  /** Reading from the cache. @default 0.1 × input */
  cacheReadPerMTok: perMTok.optional(),
};

/**
 * Prices of one model in US dollars per million tokens. Cache prices are absolute (not
 * multipliers) because the multipliers differ between models.
 */
export const modelPricingSchema = z.strictObject({
  ...bandFields,
  /**
   * A long-prompt band: when input + cache reads + cache writes exceed `thresholdTokens`, every
   * token of the call is billed at these prices instead.
   */
  longPrompt: z
    .strictObject({ ...bandFields, thresholdTokens: z.number().int().positive() })
    .optional(),
});
export type ModelPricing = z.infer<typeof modelPricingSchema>;

/** Token counts of one call, split the way providers bill them. */
export interface BilledTokens {
  /** Uncached input tokens. */
  inputTokens: number;
  outputTokens: number;
  cacheWrite5mTokens: number;
  cacheWrite1hTokens: number;
  cacheReadTokens: number;
}

/**
 * Cost of one call in US dollars under `pricing`.
 *
 * @example
 * costOfCall({ inputPerMTok: 2, outputPerMTok: 10 }, { inputTokens: 1000, outputTokens: 100,
 *   cacheReadTokens: 0, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0 }); // 0.003
 */
export function costOfCall(pricing: ModelPricing, tokens: BilledTokens): number {
  const prompt =
    tokens.inputTokens +
    tokens.cacheReadTokens +
    tokens.cacheWrite5mTokens +
    tokens.cacheWrite1hTokens;
  const band =
    pricing.longPrompt !== undefined && prompt > pricing.longPrompt.thresholdTokens
      ? pricing.longPrompt
      : pricing;
  const input = band.inputPerMTok;
  return (
    (tokens.inputTokens * input +
      tokens.outputTokens * band.outputPerMTok +
      tokens.cacheWrite5mTokens * (band.cacheWrite5mPerMTok ?? input * 1.25) +
      tokens.cacheWrite1hTokens * (band.cacheWrite1hPerMTok ?? input * 2) +
      tokens.cacheReadTokens * (band.cacheReadPerMTok ?? input * 0.1)) /
    1_000_000
  );
}
