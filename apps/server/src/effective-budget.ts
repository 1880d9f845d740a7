import type { EffectiveBudget } from './run-engine.js';
import type { RunBudgetRequest } from './run-request.js';
import type { ModelProfile, RunMaxima } from './server-config.js';

/**
 * The budget a run gets: what the request asked for (else the profile's defaults, else the
 * maxima), each value capped at the server's maximum. Capping, not rejecting, keeps clients that
 * ask for "a lot" working.
 */
export function effectiveBudget(
  profile: ModelProfile,
  requested: RunBudgetRequest | undefined,
  maxima: RunMaxima,
): EffectiveBudget {
  const pick = (asked: number | undefined, fallback: number, max: number) =>
    Math.min(asked ?? fallback, max);
  return {
    maxIterations: pick(requested?.maxIterations, profile.maxIterations, maxima.maxIterations),
    maxDepth: pick(requested?.maxDepth, profile.maxDepth, maxima.maxDepth),
    maxTokens: pick(requested?.maxTokens, maxima.maxTokens, maxima.maxTokens),
    maxCostUsd: pick(requested?.maxCostUsd, maxima.maxCostUsd, maxima.maxCostUsd),
    maxWallTimeMs: pick(requested?.maxWallTimeMs, maxima.maxWallTimeMs, maxima.maxWallTimeMs),
    maxSubcalls: pick(requested?.maxSubcalls, maxima.maxSubcalls, maxima.maxSubcalls),
  };
}
