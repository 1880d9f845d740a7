import { readFile } from 'node:fs/promises';
import type { RunEvent, TrajectoryRecord } from '@rlm/protocol';
import { type ExpandTrajectoryOptions, expandTrajectory } from './expand-trajectory.js';
import { type JsonLinesResult, jsonLinesError, safeParseJsonLines } from './parse-json-lines.js';
import { type StoredTrajectoryLine, storedTrajectoryLineSchema } from './stored-line.js';

/**
 * Parses trajectory JSONL text into its lines as written, each checked against the format's
 * schemas (records, the packed records of format 2 and the compressed groups of format 3), without expanding anything. A last line cut short by a crash is dropped.
 */
export function safeParseTrajectoryLines(text: string): JsonLinesResult<StoredTrajectoryLine> {
  return safeParseJsonLines(text, storedTrajectoryLineSchema);
}

/**
 * Parses trajectory JSONL text into records, each checked against the protocol schema, with
 * packed strings expanded (`options.payloads` are the recorded run's contexts, needed only when
 * the file refers to slices of them). A last line cut short by a crash is dropped (a trajectory
 * is written line by line, so it is always a readable prefix); any other bad line is reported
 * with its number.
 *
 * @throws RlmError `trace.context_missing` when the file refers to a context not given (see
 *   `expandTrajectory`)
 * @example
 * const result = safeParseTrajectory(text);
 * if (result.ok) for (const event of trajectoryEvents(result.value)) tree.apply(event);
 */
export function safeParseTrajectory(
  text: string,
  options: ExpandTrajectoryOptions = {},
): JsonLinesResult<TrajectoryRecord> {
  const result = safeParseTrajectoryLines(text);
  if (!result.ok) return result;
  if (!result.value.some((line) => line.kind === 'packed' || line.kind === 'group')) {
    return { ...result, value: result.value as TrajectoryRecord[] };
  }
  return { ...result, value: expandTrajectory(result.value, options) };
}

/**
 * `safeParseTrajectory` that throws on a bad line.
 *
 * @throws RlmError `protocol.invalid_message` naming the line; `trace.context_missing`
 */
export function parseTrajectory(
  text: string,
  options: ExpandTrajectoryOptions = {},
): TrajectoryRecord[] {
  const result = safeParseTrajectory(text, options);
  if (result.ok) return result.value;
  throw jsonLinesError(result.error, 'trajectory');
}

/**
 * Reads a trajectory file written by a run (`trajectory: { dir }` in `@rlm/executor`), expanding
 * what refers to the run's contexts when `options.payloads` holds them.
 *
 * @throws RlmError `protocol.invalid_message` for a malformed line; `trace.context_missing` when
 *   the file refers to a context not given; the file system's error when the file cannot be read
 * @example
 * const records = await readTrajectory(result.trajectoryPath, { payloads: [context] });
 */
export async function readTrajectory(
  path: string,
  options: ExpandTrajectoryOptions = {},
): Promise<TrajectoryRecord[]> {
  const result = safeParseTrajectory(await readFile(path, 'utf8'), options);
  if (result.ok) return result.value;
  throw jsonLinesError(result.error, `trajectory ${path}`);
}

/** The run events of a trajectory, in order. */
export function trajectoryEvents(records: readonly TrajectoryRecord[]): RunEvent[] {
  return records.flatMap((record) => (record.kind === 'event' ? [record.event] : []));
}
