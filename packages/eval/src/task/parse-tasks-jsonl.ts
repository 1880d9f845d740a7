import { RlmError } from '@rlm/protocol';
import { type EvalTask, evalTaskSchema } from './eval-task.js';

export interface ParseTasksOptions {
  /** Named in error messages, e.g. the file path. @default 'tasks' */
  source?: string;
}

/**
 * Parses JSONL text into tasks: one JSON object per line, blank lines skipped. Task ids must be
 * unique because result rows (and resume) are keyed by them.
 *
 * @throws RlmError `eval.invalid_task` with the 1-based line number and every issue
 * @example
 * const tasks = parseTasksJsonl('{"id":"t1","query":"2+2?","context":"","answer":"4"}\n');
 */
export function parseTasksJsonl(
  text: string,
  { source = 'tasks' }: ParseTasksOptions = {},
): EvalTask[] {
  const tasks: EvalTask[] = [];
  const seen = new Map<string, number>();
  const lines = text.split('\n');
  for (const [index, raw] of lines.entries()) {
    const line = index + 1;
    if (raw.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw invalidTask({ source, line, issues: [`not valid JSON (${(error as Error).message})`] });
    }
    const result = evalTaskSchema.safeParse(value);
    if (!result.success) {
      const issues = result.error.issues.map(
        (issue) => `${issue.path.length === 0 ? '(root)' : issue.path.join('.')}: ${issue.message}`,
      );
      throw invalidTask({ source, line, issues });
    }
    const previous = seen.get(result.data.id);
    if (previous !== undefined) {
      throw invalidTask({
        source,
        line,
        issues: [`id: "${result.data.id}" already used on line ${previous}`],
      });
    }
    seen.set(result.data.id, line);
    tasks.push(result.data);
  }
  return tasks;
}

function invalidTask({
  source,
  line,
  issues,
}: {
  source: string;
  line: number;
  issues: string[];
}): RlmError<'eval.invalid_task'> {
  return new RlmError({
    code: 'eval.invalid_task',
    message: `Invalid task in ${source} at line ${line}: ${issues.join('; ')}`,
    details: { line, issues },
  });
}
