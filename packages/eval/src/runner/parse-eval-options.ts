import { RlmError } from '@rlm/protocol';
import type { EvalTask } from '../task/eval-task.js';
import { type EvalSystem, type EvalSystemInput, evalSystemSchema } from './eval-system.js';

/**
 * Validates the systems, naming each bad field by index.
 *
 * @throws RlmError `config.invalid`
 */
export function parseSystems(input: readonly EvalSystemInput[]): EvalSystem[] {
  const issues: string[] = [];
  const systems: EvalSystem[] = [];
  for (const [index, system] of input.entries()) {
    const result = evalSystemSchema.safeParse(system);
    if (result.success) systems.push(result.data);
    else
      issues.push(
        ...result.error.issues.map(
          (issue) => `systems.${index}.${issue.path.join('.')}: ${issue.message}`,
        ),
      );
  }
  const names = systems.map((system) => system.name);
  const duplicate = names.find((name, index) => names.indexOf(name) !== index);
  if (duplicate !== undefined) issues.push(`systems: the name "${duplicate}" is used twice`);
  if (input.length === 0) issues.push('systems: expected at least one system');
  if (issues.length > 0) {
    throw new RlmError({
      code: 'config.invalid',
      message: `Invalid eval systems: ${issues.join('; ')}`,
      details: { source: 'eval systems', issues },
    });
  }
  return systems;
}

/**
 * Checks attempts, concurrency and task ids.
 *
 * @throws RlmError `config.invalid`
 */
export function checkCounts({
  attempts,
  concurrency,
  tasks,
}: {
  attempts: number;
  concurrency: number;
  tasks: readonly EvalTask[];
}): void {
  const issues: string[] = [];
  if (!Number.isInteger(attempts) || attempts < 1) {
    issues.push(`attempts: expected a positive integer, got ${attempts}`);
  }
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    issues.push(`concurrency: expected a positive integer, got ${concurrency}`);
  }
  // Rows are keyed by task id, so two tasks with one id would overwrite each other's results.
  const ids = new Set<string>();
  for (const task of tasks) {
    if (ids.has(task.id)) issues.push(`tasks: the id "${task.id}" is used twice`);
    ids.add(task.id);
  }
  if (issues.length > 0) {
    throw new RlmError({
      code: 'config.invalid',
      message: `Invalid eval options: ${issues.join('; ')}`,
      details: { source: 'eval options', issues },
    });
  }
}
