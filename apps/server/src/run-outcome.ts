import type { RunRecord } from '@rlm/memory';
import {
  emptyUsage,
  isEndStatus,
  type RLMChatCompletion,
  type RunEvent,
  type RunEventOf,
  type RunStatus,
  type UsageSummary,
} from '@rlm/protocol';

/** How a finished run ended, as the API reports it. */
export interface RunOutcome {
  status: RunStatus;
  answer: string | null;
  partialAnswer: string | null;
  usage: UsageSummary;
  /** Calls a budget refused in the run's tree (absent from outcomes the server wrote itself). */
  refusedCalls?: number;
  /** Times the run's REPL was reset (`sandbox.reset`); absent when none. */
  sandboxResets?: number;
  iterations: number;
  durationMs: number;
  error: { code: string; message: string } | null;
}

/** The outcome carried by an engine result. */
export function outcomeFromCompletion(result: RLMChatCompletion): RunOutcome {
  return {
    status: result.status,
    answer: result.answer,
    partialAnswer: result.partialAnswer,
    usage: result.usage,
    refusedCalls: result.refusedCalls ?? 0,
    ...(result.sandboxResets === undefined ? {} : { sandboxResets: result.sandboxResets }),
    iterations: result.iterations,
    durationMs: result.executionTime,
    error: result.error,
  };
}

/**
 * Rebuilds the outcome from a run's stored events: the root's `run-end` (depth 0), which carries
 * its own end reason. Earlier `error` events are not read: a restart notice (`server.unavailable`)
 * in the log of a run that went on and ended otherwise is not why it ended. A `run-end` a resume
 * superseded (see `supersedesEnd`) is not the run's end either, nor one at or before
 * `reopenedAt` (see `reopenedAt`). Returns undefined while the run has not ended.
 */
export function outcomeFromEvents(
  events: readonly RunEvent[],
  { reopenedAt }: { reopenedAt?: number } = {},
): RunOutcome | undefined {
  let end: RunEventOf<'run-end'> | undefined;
  for (const event of events) {
    if (event.depth !== 0) continue;
    if (event.type === 'run-end') end = event;
    else if (event.type === 'run-resume') end = undefined;
  }
  // Reopened by a resume whose run has not emitted anything yet: that end is not the run's.
  if (end === undefined || (reopenedAt !== undefined && end.at <= reopenedAt)) return undefined;
  return {
    status: end.status,
    answer: end.answer,
    partialAnswer: end.partialAnswer,
    usage: end.usage,
    refusedCalls: end.refusedCalls ?? 0,
    ...(end.sandboxResets === undefined ? {} : { sandboxResets: end.sandboxResets }),
    iterations: end.iterations,
    durationMs: end.durationMs,
    error: end.error ?? null,
  };
}

/** Events the server itself writes (a run cancelled in the queue, or interrupted by a restart). */
export function serverEndEvents(
  runId: string,
  options: { status: RunStatus; at: number; error?: { code: string; message: string } },
): RunEvent[] {
  const base = {
    v: 1,
    runId,
    parentRunId: null,
    rootRunId: runId,
    depth: 0,
    at: options.at,
  } as const;
  const events: RunEvent[] = [];
  if (options.error !== undefined) events.push({ ...base, type: 'error', error: options.error });
  events.push({
    ...base,
    type: 'run-end',
    status: options.status,
    answer: null,
    partialAnswer: null,
    usage: emptyUsage(),
    iterations: 0,
    durationMs: 0,
    ...(options.error === undefined ? {} : { error: options.error }),
  });
  return events;
}

/** The outcome of a run that ended without running (cancelled in the queue, failed to start). */
export function emptyOutcome(status: RunOutcome['status']): RunOutcome {
  return {
    status,
    answer: null,
    partialAnswer: null,
    usage: { models: {} },
    iterations: 0,
    durationMs: 0,
    error: null,
  };
}

/**
 * The time a stored run not marked ended was last changed, if an end at `endAt` or before it is
 * superseded by it: the record was reopened by a resume after that end (the run's own status
 * change to `running` comes before its events, so a run still finishing is not taken for one).
 */
export function reopenedAt(record: RunRecord): number | undefined {
  return isEndStatus(record.status) ? undefined : record.updatedAt;
}

/**
 * Whether `later`, stored after a root `run-end`, shows that the run went on after that end (it
 * was resumed through the API): its root `run-resume`, or another root `run-end` (a resume that
 * failed before the run went on). The event log is append-only, so the stopped attempt's end
 * stays stored; what the server serves of the run leaves it out, and the run ends once.
 */
export function supersedesEnd(later: RunEvent): boolean {
  return later.depth === 0 && (later.type === 'run-resume' || later.type === 'run-end');
}

/** The items whose event is a root `run-end` superseded by a later one (see `supersedesEnd`). */
export function withoutSupersededEnds<T>(
  items: readonly T[],
  eventOf: (item: T) => RunEvent | undefined,
): T[] {
  const kept: T[] = [];
  let pendingEnd: number | undefined;
  for (const item of items) {
    const event = eventOf(item);
    if (event !== undefined && pendingEnd !== undefined && supersedesEnd(event)) {
      kept.splice(pendingEnd, 1);
      pendingEnd = undefined;
    }
    if (event?.depth === 0 && event.type === 'run-end') pendingEnd = kept.length;
    kept.push(item);
  }
  return kept;
}
