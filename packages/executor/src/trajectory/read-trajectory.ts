import { readFile } from 'node:fs/promises';
import {
  describeIssues,
  RlmError,
  type TrajectoryRecord,
  trajectoryRecordSchema,
} from '@rlm/protocol';

/**
 * Parses trajectory JSONL text. A last line cut short by a crash is dropped (the file is a
 * readable prefix by design); any other bad line is an error naming its line number.
 *
 * @throws RlmError `protocol.invalid_message`
 */
export function parseTrajectory(text: string): TrajectoryRecord[] {
  const lines = text.split('\n');
  const records: TrajectoryRecord[] = [];
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    const isLast = lines.slice(index + 1).every((rest) => rest.trim() === '');
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (cause) {
      if (isLast) break;
      throw new RlmError({
        code: 'protocol.invalid_message',
        message: `Invalid trajectory: line ${index + 1} is not JSON`,
        details: { issues: [`line ${index + 1}: not JSON`] },
        cause,
      });
    }
    const parsed = trajectoryRecordSchema.safeParse(json);
    if (!parsed.success) {
      const issues = describeIssues(parsed.error).map((issue) => `line ${index + 1}: ${issue}`);
      throw new RlmError({
        code: 'protocol.invalid_message',
        message: `Invalid trajectory record:\n${issues.join('\n')}`,
        details: { issues },
        cause: parsed.error,
      });
    }
    records.push(parsed.data);
  }
  return records;
}

/**
 * Reads a trajectory file written by a run (`trajectory: { dir }`).
 *
 * @throws RlmError `protocol.invalid_message` for a malformed line; the file system's error when
 *   the file cannot be read
 * @example
 * const records = await readTrajectory(result.trajectoryPath);
 */
export async function readTrajectory(path: string): Promise<TrajectoryRecord[]> {
  return parseTrajectory(await readFile(path, 'utf8'));
}
