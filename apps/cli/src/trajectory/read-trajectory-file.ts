import { readFile } from 'node:fs/promises';
import {
  describeIssues,
  RlmError,
  type RunEvent,
  type TrajectoryRecord,
  trajectoryRecordSchema,
} from '@rlm/protocol';

/** A trajectory file, parsed and validated line by line. */
export interface TrajectoryFile {
  path: string;
  records: TrajectoryRecord[];
  header: Extract<TrajectoryRecord, { kind: 'header' }> | undefined;
  events: RunEvent[];
}

/**
 * Reads a JSONL trajectory. Every line is checked against the protocol schema, so a damaged
 * or foreign file fails with the line that is wrong instead of rendering nonsense.
 *
 * @throws RlmError `cli.trajectory_invalid` naming the file and line
 */
export async function readTrajectoryFile(path: string): Promise<TrajectoryFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new RlmError({
      code: 'cli.trajectory_invalid',
      message:
        code === 'ENOENT'
          ? `No trajectory at ${path}; pass the .jsonl path printed by rlm run (or a run id).`
          : `Cannot read trajectory ${path} (${code ?? 'read error'}); check its permissions.`,
      details: { path, line: undefined },
      cause: error,
    });
  }
  const records: TrajectoryRecord[] = [];
  const lines = text.split('\n');
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    records.push(parseLine(line, { path, line: index + 1 }));
  }
  if (records.length === 0) {
    throw new RlmError({
      code: 'cli.trajectory_invalid',
      message: `Trajectory ${path} is empty; the run may have failed before it started.`,
      details: { path, line: undefined },
    });
  }
  const header = records.find((record) => record.kind === 'header');
  const events = records.flatMap((record) => (record.kind === 'event' ? [record.event] : []));
  return { path, records, header, events };
}

function parseLine(text: string, where: { path: string; line: number }): TrajectoryRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw invalidLine(where, 'is not JSON', error);
  }
  const result = trajectoryRecordSchema.safeParse(value);
  if (result.success) return result.data;
  throw invalidLine(
    where,
    `is not a trajectory record (${describeIssues(result.error).join('; ')})`,
    result.error,
  );
}

function invalidLine(where: { path: string; line: number }, reason: string, cause: unknown) {
  return new RlmError({
    code: 'cli.trajectory_invalid',
    message: `Trajectory ${where.path} line ${where.line} ${reason}; is this an rlm trajectory file?`,
    details: { path: where.path, line: where.line },
    cause,
  });
}
