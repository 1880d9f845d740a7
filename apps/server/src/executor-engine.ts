import { createRLM, type RLMConfig } from '@rlm/executor';
import { type LanguageModel, RlmError } from '@rlm/protocol';
import { findTrajectoryHeader, replayingModel, responseReplay } from '@rlm/trace';
import type { RunEngine, RunEngineInput } from './run-engine.js';

/** Turns a profile's model id into a client (production: `@rlm/executor`'s `resolveModel`). */
export type ModelResolver = (modelId: string) => LanguageModel;

export interface ExecutorEngineOptions {
  resolveModel: ModelResolver;
  /** Sandbox placement; `worker` keeps a spinning block off the server's event loop. @default 'worker' */
  isolation?: 'worker' | 'inline';
}

/**
 * The production `RunEngine`: one `createRLM` per run over `@rlm/executor`, with the server's run
 * id as the root run id, events and trajectory records handed to the server as they happen, the
 * run's capped budget, and the server's run store for a checkpoint after every root turn. A
 * restarted run continues with `rlm.resume` from its latest checkpoint; one killed before its first
 * checkpoint runs again from its first turn (`rerun`), its recorded model responses answering the
 * same requests again. Either way the executor marks the restart itself (`run-resume`, no second
 * header), so what it emits is stored as it is. An agent turn's layered system prompt is the
 * RLM's `systemPromptPrefix`: root-model calls get it before the REPL instructions (sub-calls keep
 * their plain prompts), and the trajectory records the prompt as sent.
 */
export function createExecutorEngine({
  resolveModel,
  isolation = 'worker',
}: ExecutorEngineOptions): RunEngine {
  return {
    async run(input) {
      const { model, subModel } = runModels(input, resolveModel);
      const { budget } = input;
      const rlm = createRLM({
        model,
        subModel,
        maxDepth: budget.maxDepth,
        maxIterations: budget.maxIterations,
        budget: executorBudget(budget, [model, subModel]),
        tools: { ...(input.tools ?? {}) },
        trajectory: {
          write: input.onTrajectory,
          async close() {},
        },
        onEvent: input.onEvent,
        ...(input.runStore === undefined ? {} : { runStore: input.runStore }),
        ...(input.systemPrompt === undefined ? {} : { systemPromptPrefix: input.systemPrompt }),
        generateId: () => input.runId,
        isolation,
      });
      const { context, query, signal } = input;
      if (input.resume === true) {
        try {
          return await rlm.resume(input.runId, { context, signal });
        } catch (error) {
          // A checkpoint this version cannot read (or none): start over with the replay. It fails
          // before the run goes on, so nothing was emitted twice.
          if (!RlmError.is(error, 'executor.no_checkpoint')) throw error;
        }
      }
      // The earlier attempt started the run (its header and run-start are stored): go on with it.
      const rerun = findTrajectoryHeader(input.recorded ?? []) !== undefined;
      return rlm.completion(context, { query, signal, rerun });
    },
  };
}

/**
 * The run's budget as the executor takes it. Dollars are capped only when every model has a
 * price (or reports its cost, like OpenRouter): on a model without one (a local server) the
 * executor would refuse the run, and the cap could not be enforced anyway.
 */
function executorBudget(
  budget: RunEngineInput['budget'],
  models: readonly LanguageModel[],
): NonNullable<RLMConfig['budget']> {
  const priced = models.every((model) => model.pricing !== undefined || model.reportsCost === true);
  return {
    maxTokens: budget.maxTokens,
    ...(priced ? { maxCostUsd: budget.maxCostUsd } : {}),
    maxWallTimeMs: budget.maxWallTimeMs,
    maxSubcalls: budget.maxSubcalls,
  };
}

/**
 * The run's root and sub-model clients. On a restart, responses recorded before it answer the
 * same requests again (turns run again after a missing checkpoint, or the interrupted turn's call
 * when it had been answered), so those calls are not paid twice.
 */
function runModels(
  input: RunEngineInput,
  resolveModel: ModelResolver,
): { model: LanguageModel; subModel: LanguageModel } {
  const replay = input.recorded === undefined ? undefined : responseReplay(input.recorded);
  const live = (id: string) => {
    const client = resolveModel(id);
    return replay === undefined ? client : replayingModel(client, replay);
  };
  const model = live(input.profile.model);
  const subModel = input.profile.subModel === undefined ? model : live(input.profile.subModel);
  return { model, subModel };
}
