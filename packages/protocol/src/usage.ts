import { z } from 'zod';

/** Tokens of one model call, as the provider reported them. */
export const tokenUsageSchema = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  /** Input tokens served from the provider's prompt cache. */
  cacheReadTokens: z.number().int().nonnegative().default(0),
  /** Input tokens written to the provider's prompt cache. */
  cacheWriteTokens: z.number().int().nonnegative().default(0),
});
export type TokenUsage = z.infer<typeof tokenUsageSchema>;

/** Totals for one model across any number of calls. */
export const modelUsageSummarySchema = z.object({
  calls: z.number().int().nonnegative(),
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  cacheReadTokens: z.number().int().nonnegative(),
  cacheWriteTokens: z.number().int().nonnegative(),
  /** Cost in US dollars; 0 when the model has no known price. */
  costUsd: z.number().nonnegative(),
  /** Calls answered from the sub-call cache (not in `calls`, their tokens not counted). */
  cachedCalls: z.number().int().nonnegative().optional(),
  /** What those cached calls cost when they were first made. */
  savedCostUsd: z.number().nonnegative().optional(),
});
export type ModelUsageSummary = z.infer<typeof modelUsageSummarySchema>;

/** Usage per model id (`provider/model`), for one call, one run or a whole run tree. */
export const usageSummarySchema = z.object({
  models: z.record(z.string(), modelUsageSummarySchema),
});
export type UsageSummary = z.infer<typeof usageSummarySchema>;

/** A summary with no usage. */
export function emptyUsage(): UsageSummary {
  return { models: {} };
}

function emptyModelUsage(): ModelUsageSummary {
  return {
    calls: 0,
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    costUsd: 0,
  };
}

function addModelUsage(a: ModelUsageSummary, b: ModelUsageSummary): ModelUsageSummary {
  const sum: ModelUsageSummary = {
    calls: a.calls + b.calls,
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
    costUsd: a.costUsd + b.costUsd,
  };
  // Present only once a cache answered, so summaries of runs without one keep their shape.
  if (a.cachedCalls !== undefined || b.cachedCalls !== undefined) {
    sum.cachedCalls = (a.cachedCalls ?? 0) + (b.cachedCalls ?? 0);
    sum.savedCostUsd = (a.savedCostUsd ?? 0) + (b.savedCostUsd ?? 0);
  }
  return sum;
}

export interface RecordCallInput {
  model: string;
  usage: TokenUsage;
  costUsd?: number;
  /** Set when the cache answered: counted in `cachedCalls`, not `calls`. */
  cache?: { savedCostUsd: number } | undefined;
}

/** Zero usage, to copy from (`addModelUsage` never mutates its operands). */
const NO_USAGE: ModelUsageSummary = Object.freeze(emptyModelUsage());

/**
 * Returns a new summary with one model call added (inputs are never mutated).
 *
 * The same summary, model objects and key order as `mergeUsage(summary, { models: { [model]:
 * call } })`, built without the second summary, the entry arrays and the zero objects: every
 * model call is charged this way, once per scope up the run tree.
 */
export function addCallUsage(
  summary: UsageSummary,
  { model, usage, costUsd = 0, cache }: RecordCallInput,
): UsageSummary {
  const call: ModelUsageSummary =
    cache === undefined
      ? { calls: 1, ...usage, costUsd }
      : { calls: 0, ...usage, costUsd, cachedCalls: 1, savedCostUsd: cache.savedCostUsd };
  const models: Record<string, ModelUsageSummary> = {};
  const from = summary.models;
  for (const name of Object.keys(from)) {
    models[name] = addModelUsage(models[name] ?? NO_USAGE, from[name] as ModelUsageSummary);
  }
  models[model] = addModelUsage(models[model] ?? NO_USAGE, call);
  return { models };
}

/** Returns the sum of several summaries, model by model. */
export function mergeUsage(...summaries: readonly UsageSummary[]): UsageSummary {
  const models: Record<string, ModelUsageSummary> = {};
  for (const summary of summaries) {
    for (const [model, usage] of Object.entries(summary.models)) {
      models[model] = addModelUsage(models[model] ?? emptyModelUsage(), usage);
    }
  }
  return { models };
}

/** Totals across every model in a summary. */
export function totalUsage(summary: UsageSummary): ModelUsageSummary {
  return Object.values(summary.models).reduce(addModelUsage, emptyModelUsage());
}
