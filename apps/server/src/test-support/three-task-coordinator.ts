import type { LanguageModel, ModelRequest } from '@rlm/protocol';
import { scriptedModel } from '@rlm/testkit';

/**
 * The coordinator the resume and take-over tests script: turn 0 delegates two tasks and reads
 * them, turn 1 delegates a third, turn 2 answers with all three (`ONE+TWO+THREE`). A task answers
 * with its context in capitals, so a task that ran twice or not at all shows in the answer or in
 * the per-task request counts the tests keep.
 */

/** A model reply that runs `code` as one REPL block. */
export const fence = (code: string): string => `Next step:\n\`\`\`repl\n${code}\n\`\`\``;

/** Whether a request is the coordinator's own (its prompt has the dispatcher section) or a task's. */
export const isCoordinatorRequest = (text: string): boolean => text.includes('## Background tasks');

/** Which task (`one`, `two`, `three`) a task's request belongs to, from its request text. */
export const taskOf = (text: string): string => /task (\w+)/.exec(text)?.[1] ?? '?';

/** A task's reply: its context in capitals. */
export const TASK_REPLY = fence('FINAL(context.toUpperCase())');

/** The coordinator's reply on its turn `turn` (0-based: the assistant messages so far). */
export function coordinatorReply(turn: number): string {
  switch (turn) {
    case 0:
      return fence(
        [
          "const first = delegate_batch([{ task: 'task one', context: 'one' }, { task: 'task two', context: 'two' }])",
          "const early = (await await_results(first)).results.map((r) => r.summary).join('+')",
        ].join('\n'),
      );
    case 1:
      return fence(
        "const late = (await await_results([delegate('task three', { context: 'three' })])).results[0].summary",
      );
    default:
      return fence("FINAL(early + '+' + late)");
  }
}

/** The assistant turns a request's messages hold: the coordinator's turn number. */
export const turnOf = (request: ModelRequest): number =>
  request.messages.filter((message) => message.role === 'assistant').length;

/** The three-task coordinator as a scripted model; `perTask` counts each task's requests, so a task run again shows. */
export function threeTaskCoordinator(perTask: Map<string, number>): LanguageModel {
  return scriptedModel((request) => {
    if (!isCoordinatorRequest(request.system ?? '')) {
      const task = taskOf(JSON.stringify(request.messages));
      perTask.set(task, (perTask.get(task) ?? 0) + 1);
      return TASK_REPLY;
    }
    return coordinatorReply(turnOf(request));
  });
}
