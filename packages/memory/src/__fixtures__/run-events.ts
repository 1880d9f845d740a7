import type { RunEvent, TrajectoryRecord } from '@rlm/protocol';

/** A valid `iteration-start` event of a root run. */
export function iterationStart(runId: string, iteration: number): RunEvent {
  return { v: 1, type: 'iteration-start', runId, parentRunId: null, rootRunId: runId, depth: 0, at: 1_000 + iteration, iteration };
}

/** A trajectory header for `runId`. */
export function trajectoryHeader(runId: string): TrajectoryRecord {
  return { kind: 'header', version: 1, runId, createdAt: '2026-01-01T00:00:00.000Z', config: { model: 'fake/model' } };
}
