import { formatCost, formatCount } from './format-units.js';
import type { TraceEscalation, TraceSubcall } from './trace-tree.js';

/** Why a child was run again, in words (trajectories before the count was recorded lack it). */
function reasonText({ reason, consecutiveErrors }: TraceEscalation): string {
  if (reason === 'no-answer') return 'its turns ran out without an answer';
  return consecutiveErrors === undefined
    ? 'its code failed turns in a row'
    : `its code failed ${consecutiveErrors} turns in a row`;
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
    const { toModel } = call.escalatedTo;
    marks.push(`escalated to ${toModel}: ${reasonText(call.escalatedTo)}`);
  }
  if (call.escalatedFrom !== undefined) {
    const { fromModel, fromRunId } = call.escalatedFrom;
    marks.push(
      `escalation from ${fromModel} (run ${fromRunId}: ${reasonText(call.escalatedFrom)})`,
    );
  }
  return marks;
}
