import { usageSummarySchema } from '@rlm/protocol';
import { z } from 'zod';

/** What `stream_results` and `await_results` report for one finished background task. */
export const taskResultSchema = z.object({
  taskId: z.string(),
  task: z.string(),
  ok: z.boolean(),
  /** The start of the output, bounded; the full output is under `task:<id>` in the scratchpad. */
  summary: z.string(),
  error: z.string().nullable(),
  durationMs: z.number().nonnegative(),
  usage: usageSummarySchema,
  /**
   * Host functions the task's code called (`llm_query`, `rlm_query`, tools, context helpers),
   * its own and its children's: how much work the task did besides thinking.
   */
  toolCalls: z.number().int().nonnegative(),
});
export type TaskResult = z.infer<typeof taskResultSchema>;

/** The scratchpad key of a task's full result. */
export function taskKey(taskId: string): string {
  return `task:${taskId}`;
}

/** A bounded summary: the whole text when short, else its head and where to read the rest. */
export function taskSummary(
  text: string,
  { taskId, maxChars }: { taskId: string; maxChars: number },
): string {
  if (text.length <= maxChars) return text;
  return (
    `${text.slice(0, maxChars)}… (${text.length - maxChars} more characters: ` +
    `inspect('${taskKey(taskId)}'))`
  );
}
