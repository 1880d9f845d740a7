import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { RlmError } from '@rlm/protocol';
import type { EvalTask } from './eval-task.js';
import { parseTasksJsonl } from './parse-tasks-jsonl.js';

/**
 * Reads a JSONL task file. `contextFile` paths are made absolute (relative to the task file) so
 * the runner can read each context only when its task runs.
 *
 * @throws RlmError `eval.invalid_task` for a bad line (with its number) or an unreadable file
 */
export async function loadTasks(path: string): Promise<EvalTask[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new RlmError({
      code: 'eval.invalid_task',
      message: `Cannot read task file ${path}: ${(error as Error).message}`,
      details: {
        line: undefined,
        issues: [`file: cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`],
      },
      cause: error,
    });
  }
  const base = dirname(path);
  return parseTasksJsonl(text, { source: path }).map((task) =>
    task.contextFile === undefined || isAbsolute(task.contextFile)
      ? task
      : { ...task, contextFile: resolve(base, task.contextFile) },
  );
}
