import { RlmError } from '@rlm/protocol';
import { safeParseJsonLines } from '@rlm/trace';
import { type EvalTask, evalTaskSchema } from './eval-task.js';

export interface ParseTasksOptions {
  /** Named in error messages, e.g. the file path. @default 'tasks' */
  source?: string;
}

/**
 * Parses JSONL text into tasks with `@rlm/trace`'s JSONL reader: one JSON object per line, blank
 * lines skipped, a broken last line an error like any other (the file is written by hand, not
 * cut by a crash). Task ids must be unique because result rows (and resume) are keyed by them.
 *
 * @throws RlmError `eval.invalid_task` with the 1-based line number and every issue
 * @example
 * const tasks = parseTasksJsonl('{"id":"t1","query":"2+2?","context":"","answer":"4"}\n');
 */
export function parseTasksJsonl(
  text: string,
  { source = 'tasks' }: ParseTasksOptions = {},
): EvalTask[] {
  const parsed = safeParseJsonLines(text, evalTaskSchema, { truncatedTail: 'error' });
  if (!parsed.ok) throw invalidTask({ source, ...parsed.error });
  const seen = new Map<string, number>();
  for (const [index, task] of parsed.value.entries()) {
    const line = parsed.lines[index] ?? index + 1;
    const previous = seen.get(task.id);
    if (previous !== undefined) {
      throw invalidTask({
        source,
        line,
        issues: [`id: "${task.id}" already used on line ${previous}`],
      });
    }
    seen.set(task.id, line);
  }
  return parsed.value;
}

function invalidTask({
  source,
  line,
  issues,
  cause,
}: {
  source: string;
  line: number;
  issues: string[];
  cause?: unknown;
}): RlmError<'eval.invalid_task'> {
  return new RlmError({
    code: 'eval.invalid_task',
    message: `Invalid task in ${source} at line ${line}: ${issues.join('; ')}`,
    details: { line, issues },
    cause,
  });
}
