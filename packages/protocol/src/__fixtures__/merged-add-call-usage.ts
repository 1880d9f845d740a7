import type { ModelUsageSummary, RecordCallInput, UsageSummary } from '../usage.js';
import { mergeUsage } from '../usage.js';

/**
 * The oracle for `addCallUsage`: its earlier form, the call merged in as a one-model summary,
 * kept to check the direct version gives the same summary.
 */
export function mergedAddCallUsage(
  summary: UsageSummary,
  { model, usage, costUsd = 0 }: RecordCallInput,
): UsageSummary {
  const call: ModelUsageSummary = { calls: 1, ...usage, costUsd };
  return mergeUsage(summary, { models: { [model]: call } });
}
