import { readFileSync } from 'node:fs';
import type { RunEvent, TrajectoryRecord } from '@rlm/protocol';
import { parseTrajectory, trajectoryEvents } from '../read-trajectory.js';
import { TraceTree } from '../trace-tree.js';

/**
 * The recordings in `__fixtures__` (see `record-fixtures.mjs` there; `format-3-groups`, a file an
 * earlier build wrote, `record-format-3.mjs`).
 */
export type RecordedRun =
  | 'nested-run'
  | 'child-run'
  | 'hostile-run'
  | 'simple-run'
  | 'format-3-groups';

/** The path of a recording. */
export function recordingPath(name: RecordedRun): string {
  return new URL(`../__fixtures__/${name}.jsonl`, import.meta.url).pathname;
}

/** A recorded trajectory's text. */
export function recordingText(name: RecordedRun): string {
  return readFileSync(recordingPath(name), 'utf8');
}

/** A recorded trajectory's records. */
export function recording(name: RecordedRun): TrajectoryRecord[] {
  return parseTrajectory(recordingText(name));
}

/** A recorded run's events: `nested-run` has a failing block, an llm_query and an rlm_query child. */
export function recordedEvents(name: RecordedRun): RunEvent[] {
  return trajectoryEvents(recording(name));
}

/** A trace tree fed `events`, in order. */
export function treeOf(events: readonly RunEvent[]): TraceTree {
  const tree = new TraceTree();
  for (const event of events) tree.apply(event);
  return tree;
}
