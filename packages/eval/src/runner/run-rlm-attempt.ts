import { createRLM } from '@rlm/executor';
import type { EvalTask } from '../task/eval-task.js';
import { contextAsText, readTaskContext } from '../task/read-task-context.js';
import { type AttemptOutcome, usageTotals } from './attempt-outcome.js';
import type { RlmSystem } from './eval-system.js';
import type { ModelResolver } from './model-resolver.js';

export interface RunRlmAttemptOptions {
  system: RlmSystem;
  task: EvalTask;
  resolveModel: ModelResolver;
  /** Where the run's trajectory (JSONL) goes; none when absent. */
  trajectoryDir?: string | undefined;
  signal?: AbortSignal | undefined;
  now?: () => number;
}

/**
 * Runs one RLM attempt on one task. Model, code and budget failures come back as the run's
 * status (the executor never rejects for them); the best partial answer is scored when the run
 * did not complete.
 */
export async function runRlmAttempt({
  system,
  task,
  resolveModel,
  trajectoryDir,
  signal,
  now = Date.now,
}: RunRlmAttemptOptions): Promise<AttemptOutcome> {
  const { repl } = system;
  const model = resolveModel(system.model, { task, role: 'root', repl });
  const subModel =
    system.subModel === undefined
      ? undefined
      : resolveModel(system.subModel, { task, role: 'sub', repl });
  const rlm = createRLM({
    model,
    ...(subModel === undefined ? {} : { subModel }),
    maxDepth: system.maxDepth ?? (system.promptMode === 'coordinator' ? 2 : 1),
    ...(system.maxIterations === undefined ? {} : { maxIterations: system.maxIterations }),
    promptMode: system.promptMode,
    repl,
    drivers: system.drivers,
    ...(system.budget === undefined ? {} : { budget: system.budget }),
    ...(trajectoryDir === undefined ? {} : { trajectory: { dir: trajectoryDir } }),
  });
  const context = await readTaskContext(task);
  const started = now();
  const result = await rlm.completion(context, { query: task.query, signal });
  return {
    answer: result.answer ?? result.partialAnswer,
    status: result.status,
    ...usageTotals(result.usage),
    latencyMs: Math.max(0, now() - started),
    iterations: result.iterations,
    trajectoryPath: result.trajectoryPath,
    promptVersion: result.promptVersion ?? null,
    truncatedChars: 0,
    contextChars: contextAsText(context).length,
    model: model.id,
    error: result.error,
  };
}
