import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RlmError, type TrajectoryRecord } from '@rlm/protocol';
import {
  type ExpandTrajectoryOptions,
  isRlmpaperLog,
  rlmpaperLogRecords,
  safeParseRlmpaperLog,
  safeParseTrajectory,
} from '@rlm/trace';

/**
 * Reads the trajectory `trace` and `replay` were pointed at, through `@rlm/trace` (so a last
 * line cut by a crash is read the way the executor reads it), and says what to do when it is
 * missing, unreadable, empty or not a trajectory. A reference-engine trace log reads as our
 * records (see `rlmpaperLogRecords`). `options.payloads` are the recorded run's
 * contexts, which a trajectory that refers to slices of them needs to be read whole.
 *
 * @throws RlmError `cli.trajectory_invalid` naming the file and, for a bad line, its number;
 *   `trace.context_missing` when it refers to a context not given (see `missingContext`)
 */
export async function loadTrajectory(
  path: string,
  options: ExpandTrajectoryOptions = {},
): Promise<TrajectoryRecord[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw unreadable(path, error);
  }
  if (isRlmpaperLog(text)) return rlmpaperRecords(path, text);
  const parsed = safeParseTrajectory(text, options);
  if (!parsed.ok) {
    const { line, issues, cause } = parsed.error;
    const reason =
      cause instanceof SyntaxError
        ? 'is not JSON'
        : `is not a trajectory record (${issues.join('; ')})`;
    throw new RlmError({
      code: 'cli.trajectory_invalid',
      message: `Trajectory ${path} line ${line} ${reason}; is this an rlm trajectory file?`,
      details: { path, line },
      cause,
    });
  }
  if (parsed.value.length === 0) {
    throw new RlmError({
      code: 'cli.trajectory_invalid',
      message: `Trajectory ${path} is empty; the run may have failed before it started.`,
      details: { path, line: undefined },
    });
  }
  return parsed.value;
}

/** A reference-engine log as our records; a bad line is named as in one of ours. */
function rlmpaperRecords(path: string, text: string): TrajectoryRecord[] {
  const parsed = safeParseRlmpaperLog(text);
  if (!parsed.ok) {
    const { line, issues, cause } = parsed.error;
    throw new RlmError({
      code: 'cli.trajectory_invalid',
      message: `Trace log ${path} line ${line} is not a reference-engine iteration (${issues.join('; ')}).`,
      details: { path, line },
      cause,
    });
  }
  if (parsed.value.runs.length === 0) {
    throw new RlmError({
      code: 'cli.trajectory_invalid',
      message: `Trace log ${path} has no iterations; the run may have failed before its first turn.`,
      details: { path, line: undefined },
    });
  }
  return rlmpaperLogRecords(parsed.value);
}

/** Why the file could not be read, with what to do about it. */
function unreadable(path: string, error: unknown): RlmError {
  const code = (error as NodeJS.ErrnoException).code;
  return new RlmError({
    code: 'cli.trajectory_invalid',
    message:
      code === 'ENOENT'
        ? `No trajectory at ${path}; pass the .jsonl path printed by rlm run (or a run id).`
        : code === 'EISDIR'
          ? `${path} is a directory, not a trajectory; pass one of its .jsonl files (${join(path, '<run id>.jsonl')}) or a run id.`
          : code === 'EACCES' || code === 'EPERM'
            ? `Cannot read trajectory ${path} (permission denied); check its permissions.`
            : `Cannot read trajectory ${path} (${code ?? 'read error'}); check that it is a readable file.`,
    details: { path, line: undefined },
    cause: error,
  });
}
