import { readFile } from 'node:fs/promises';
import { type RunEvent, type TrajectoryRecord, trajectoryRecordSchema } from '@rlm/protocol';
import { type JsonLinesResult, jsonLinesError, safeParseJsonLines } from './parse-json-lines.js';

/**
 * Parses trajectory JSONL text into records, each checked against the protocol schema. A last
 * line cut short by a crash is dropped (a trajectory is written line by line, so it is always a
 * readable prefix); any other bad line is reported with its number.
 *
 * @example
 * const result = safeParseTrajectory(text);
 * if (result.ok) for (const event of trajectoryEvents(result.value)) tree.apply(event);
 */
export function safeParseTrajectory(text: string): JsonLinesResult<TrajectoryRecord> {
  return safeParseJsonLines(text, trajectoryRecordSchema);
}

/**
 * `safeParseTrajectory` that throws on a bad line.
 *
 * @throws RlmError `protocol.invalid_message` naming the line
 */
export function parseTrajectory(text: string): TrajectoryRecord[] {
  const result = safeParseTrajectory(text);
  if (result.ok) return result.value;
  throw jsonLinesError(result.error, 'trajectory');
}

/**
 * Reads a trajectory file written by a run (`trajectory: { dir }` in `@rlm/executor`).
 *
 * @throws RlmError `protocol.invalid_message` for a malformed line; the file system's error when
 *   the file cannot be read
 * @example
 * const records = await readTrajectory(result.trajectoryPath);
 */
export async function readTrajectory(path: string): Promise<TrajectoryRecord[]> {
  const result = safeParseTrajectory(await readFile(path, 'utf8'));
  if (result.ok) return result.value;
  throw jsonLinesError(result.error, `trajectory ${path}`);
}

/** The run events of a trajectory, in order. */
export function trajectoryEvents(records: readonly TrajectoryRecord[]): RunEvent[] {
  return records.flatMap((record) => (record.kind === 'event' ? [record.event] : []));
}
