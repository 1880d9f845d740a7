import { definedEntries, type RunSettings } from '@rlm/protocol';
import type { RLMConfig } from '../config/rlm-config.js';
import type { RunEventHandler } from '../run/event-bus.js';
import type { RunModels } from './run-models.js';
import type { CreateRunnerOptions, ResumeInput, RunInput } from './runner-types.js';

/**
 * The executor configuration of one run from its settings: the runner starts runs with it, and
 * `settingsSystemPrompt` builds the prompt from it, so the two cannot drift apart.
 */
export function runnerRlmConfig(
  settings: RunSettings,
  {
    models,
    tools,
    input,
    costCapped,
    runner,
    onEvent,
  }: {
    models: RunModels;
    tools: NonNullable<RLMConfig['tools']>;
    input: Pick<RunInput | ResumeInput, 'drivers' | 'systemPromptPrefix'> & { runId?: string };
    costCapped: number | undefined;
    runner: Pick<CreateRunnerOptions, 'trajectory' | 'runStore' | 'isolation'>;
    onEvent?: RunEventHandler;
  },
): RLMConfig {
  const { limits } = settings;
  const { runId } = input;
  return {
    model: models.model,
    ...modelFields(models),
    ...definedEntries({
      maxDepth: limits.maxDepth,
      maxIterations: limits.maxIterations,
      escalateAfterErrors: settings.escalateAfterErrors,
    }),
    promptMode: settings.mode,
    repl: settings.repl,
    drivers: [...settings.drivers, ...(input.drivers ?? [])],
    tools,
    contextHelpers: settings.tools,
    budget: definedEntries({
      maxTokens: limits.maxTokens,
      maxCostUsd: costCapped,
      maxWallTimeMs: limits.maxWallTimeMs,
      maxSubcalls: limits.maxSubcalls,
      childBudgetShare: limits.childBudgetShare,
      maxConsecutiveErrors: limits.maxConsecutiveErrors,
    }),
    limits: definedEntries({
      blockTimeoutMs: limits.blockTimeoutMs,
      maxOutputChars: limits.maxOutputChars,
    }),
    ...(runner.trajectory === undefined ? {} : { trajectory: runner.trajectory }),
    ...(runner.runStore === undefined ? {} : { runStore: runner.runStore }),
    ...(input.systemPromptPrefix === undefined
      ? {}
      : { systemPromptPrefix: input.systemPromptPrefix }),
    ...(runId === undefined ? {} : { generateId: () => runId }),
    isolation: runner.isolation ?? 'worker',
    ...(onEvent === undefined ? {} : { onEvent }),
  };
}

/** The sub-model and task model of a run's configuration, when its settings name them. */
function modelFields({
  subModel,
  taskModel,
  escalate,
}: RunModels): Pick<RLMConfig, 'subModel' | 'dispatch' | 'escalate'> {
  return {
    ...(subModel === undefined ? {} : { subModel }),
    ...(taskModel === undefined ? {} : { dispatch: { model: taskModel } }),
    ...(escalate === undefined ? {} : { escalate: [...escalate] }),
  };
}
