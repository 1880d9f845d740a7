import type { RunStatus, UsageSummary } from '@rlm/protocol';
import { RlmError, totalUsage } from '@rlm/protocol';

/** What one system attempt produced, before scoring. */
export interface AttemptOutcome {
  answer: string | null;
  status: RunStatus;
  costUsd: number;
  inputTokens: number;
  outputTokens: number;
  latencyMs: number;
  iterations: number;
  trajectoryPath: string | null;
  promptVersion: string | null;
  truncatedChars: number;
  /** Characters of the context as read (text length, or JSON length for structured payloads). */
  contextChars: number;
  model: string;
  error: { code: string; message: string } | null;
  /** Sub-calls the cache answered (absent when none), and what they would have cost. */
  cachedCalls?: number;
  savedCostUsd?: number;
}

/** Token and cost totals of a usage summary (cache reads and writes count as input). */
export function usageTotals(
  usage: UsageSummary,
): Pick<
  AttemptOutcome,
  'costUsd' | 'inputTokens' | 'outputTokens' | 'cachedCalls' | 'savedCostUsd'
> {
  const total = totalUsage(usage);
  const cachedCalls = total.cachedCalls ?? 0;
  return {
    costUsd: total.costUsd,
    inputTokens: total.inputTokens + total.cacheReadTokens + total.cacheWriteTokens,
    outputTokens: total.outputTokens,
    ...(cachedCalls === 0 ? {} : { cachedCalls, savedCostUsd: total.savedCostUsd ?? 0 }),
  };
}

/** The `{ code, message }` of a failure; non-`RlmError` failures get the code `error`. */
export function describeFailure(error: unknown): { code: string; message: string } {
  if (RlmError.is(error)) return { code: error.code, message: error.message };
  return { code: 'error', message: error instanceof Error ? error.message : String(error) };
}
