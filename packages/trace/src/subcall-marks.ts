import { formatCost, formatCount } from './format-units.js';
import type { TraceEscalation, TraceSubcall } from './trace-tree.js';

/** Why a child was run again, in words. */
function reasonText(reason: TraceEscalation['reason']): string {
  return reason === 'errors'
    ? 'its code failed turns in a row'
    : 'its turns ran out without an answer';
}

/**
 * The marks of a sub-call, in words, for every view (`rlm trace`, the trace page, the timeline):
 * a cache hit with the run that paid for it, and where and why a child escalated.
 */
export function subcallMarks(call: TraceSubcall): string[] {
  const marks: string[] = [];
  if (call.cache !== undefined) {
    const { paidByRunId, savedCostUsd, savedTokens } = call.cache;
    marks.push(
      `cache hit (paid by run ${paidByRunId}; saved ${formatCount(savedTokens)} tokens, ${formatCost(savedCostUsd)})`,
    );
  }
  if (call.escalatedTo !== undefined) {
    const { toModel, reason } = call.escalatedTo;
    marks.push(`escalated to ${toModel}: ${reasonText(reason)}`);
  }
  if (call.escalatedFrom !== undefined) {
    const { fromModel, fromRunId, reason } = call.escalatedFrom;
    marks.push(`escalation from ${fromModel} (run ${fromRunId}: ${reasonText(reason)})`);
  }
  return marks;
}
