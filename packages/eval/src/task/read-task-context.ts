import { readFile } from 'node:fs/promises';
import type { JsonValue } from '@rlm/protocol';
import { RlmError } from '@rlm/protocol';
import type { EvalTask } from './eval-task.js';

/**
 * The payload an RLM receives for a task: the inline `context`, the text of `contextFile`, or the
 * `contexts` array.
 *
 * @throws RlmError `eval.invalid_task` when `contextFile` cannot be read
 */
export async function readTaskContext(task: EvalTask): Promise<JsonValue> {
  if (task.contexts !== undefined) return task.contexts;
  if (task.contextFile !== undefined) {
    try {
      return await readFile(task.contextFile, 'utf8');
    } catch (error) {
      throw new RlmError({
        code: 'eval.invalid_task',
        message: `Task ${task.id}: cannot read contextFile ${task.contextFile}`,
        details: { line: undefined, issues: [`contextFile: cannot be read (${task.contextFile})`] },
        cause: error,
      });
    }
  }
  return task.context ?? '';
}

/** The payload as one text, for systems that paste it into a prompt (array parts separated by a blank line). */
export function contextAsText(context: JsonValue): string {
  if (typeof context === 'string') return context;
  if (Array.isArray(context)) {
    return context
      .map((part) => (typeof part === 'string' ? part : JSON.stringify(part)))
      .join('\n\n');
  }
  return JSON.stringify(context);
}
