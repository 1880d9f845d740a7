import { type CallCacheStores, createRunner } from '@rlm/executor';
import type { RunCacheInput, RunSettingsInput } from '@rlm/protocol';
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
  /** The sub-call cache every attempt of the eval shares; none when absent. */
  cache?: AttemptCache | undefined;
  signal?: AbortSignal | undefined;
  now?: () => number;
}

/** A cache shared by attempts: its settings, and the stores they name (made once per eval). */
export interface AttemptCache {
  settings: RunCacheInput;
  stores: CallCacheStores;
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
  cache,
  signal,
  now = Date.now,
}: RunRlmAttemptOptions): Promise<AttemptOutcome> {
  let modelId = system.model;
  // The runner resolves each id once per attempt; offline policies are tuned to this task.
  const runner = createRunner({
    resolveModel: (id, { repl }) => {
      const model = resolveModel(id, { task, role: id === system.model ? 'root' : 'sub', repl });
      if (id === system.model) modelId = model.id;
      return model;
    },
    ...(trajectoryDir === undefined ? {} : { trajectory: { dir: trajectoryDir } }),
    ...(cache === undefined ? {} : { callCaches: cache.stores }),
  });
  const context = await readTaskContext(task);
  const started = now();
  const settings = {
    ...attemptSettings(system),
    ...(cache === undefined ? {} : { cache: cache.settings }),
  };
  const result = await runner.run(settings, { context, query: task.query, signal });
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
    model: modelId,
    error: result.error,
  };
}

/** An eval system as the run contract: the same settings every other door would build. */
function attemptSettings(system: RlmSystem): RunSettingsInput {
  const { budget = {} } = system;
  return {
    model: system.model,
    ...(system.subModel === undefined ? {} : { subModel: system.subModel }),
    repl: system.repl,
    mode: system.promptMode,
    drivers: system.drivers,
    limits: {
      maxDepth: system.maxDepth ?? (system.promptMode === 'coordinator' ? 2 : 1),
      ...(system.maxIterations === undefined ? {} : { maxIterations: system.maxIterations }),
      ...budget,
    },
  };
}
