import type { RunEvent } from '@rlm/protocol';
import { formatCost, formatCount, formatDuration, type TraceTree } from '@rlm/trace';
import { oneLine } from './one-line.js';

/**
 * One progress line for a non-terminal stderr (CI logs, pipes), or `undefined` for events that
 * add nothing a reader of a log needs. Lines start with the depth so nested runs stay readable.
 */
export function formatPlainEvent(event: RunEvent, tree: TraceTree): string | undefined {
  const at = `[depth ${event.depth}]`;
  switch (event.type) {
    case 'run-start':
      return `${at} run ${event.runId} started: model ${event.model}, up to ${event.maxIterations} turns`;
    case 'run-resume':
      return `${at} run ${event.runId} resumed at turn ${event.fromIteration + 1}: model ${event.model}`;
    case 'iteration-start':
      return `${at} turn ${event.iteration + 1}`;
    case 'block-start':
      return `${at}   block ${event.index + 1}: ${oneLine(event.code, 70)}`;
    case 'block-end':
      return event.error === null
        ? `${at}   block ${event.index + 1} done in ${formatDuration(event.executionTime)}, ${formatCount(event.stdout.length)} chars out`
        : `${at}   block ${event.index + 1} failed: ${event.error.name}: ${oneLine(event.error.message, 80)}`;
    case 'subcall-start':
      return `${at}   ${event.kind === 'rlm' ? 'rlm_query' : 'llm_query'} → ${event.model}: "${oneLine(event.promptPreview, 50)}"`;
    case 'subcall-end':
      return event.ok
        ? undefined
        : `${at}   sub-call failed: ${event.error?.message ?? 'unknown error'}`;
    case 'limit-hit':
      return `${at} limit hit: ${event.limit} (${event.used} of ${event.max})`;
    case 'final-answer':
      return `${at} final answer (${event.source})`;
    case 'error':
      return `${at} error ${event.error.code}: ${event.error.message}`;
    case 'run-end':
      return event.depth === 0
        ? `${at} ${event.status} in ${formatDuration(event.durationMs)}: ${event.iterations} turn${event.iterations === 1 ? '' : 's'}, ${formatCount(tree.inputTokens + tree.outputTokens)} tokens, ${formatCost(tree.costUsd)}`
        : `${at} child run ${event.status} in ${formatDuration(event.durationMs)}`;
    default:
      return undefined;
  }
}
