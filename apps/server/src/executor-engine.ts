import { createRLM, type TrajectorySink } from '@rlm/executor';
import type { LanguageModel, TrajectoryRecord } from '@rlm/protocol';
import { replayingModel, responseReplay } from './response-replay.js';
import type { RunEngine } from './run-engine.js';

/** Turns a profile's model id into a client (production: `@rlm/executor`'s `resolveModel`). */
export type ModelResolver = (modelId: string) => LanguageModel;

export interface ExecutorEngineOptions {
  resolveModel: ModelResolver;
  /** Sandbox placement; `worker` keeps a spinning block off the server's event loop. @default 'worker' */
  isolation?: 'worker' | 'inline';
}

/**
 * The production `RunEngine`: one `createRLM` per run over `@rlm/executor`, with the server's run
 * id as the root run id, events and trajectory records handed to the server as they happen, and
 * the run's capped budget. An agent turn's layered system prompt is put in front of the RLM's own
 * REPL instructions on root-model calls only (sub-calls keep their plain prompts).
 */
export function createExecutorEngine({
  resolveModel,
  isolation = 'worker',
}: ExecutorEngineOptions): RunEngine {
  return {
    async run(input) {
      const replay = input.recorded === undefined ? undefined : responseReplay(input.recorded);
      const live = (id: string) => {
        const client = resolveModel(id);
        return replay === undefined ? client : replayingModel(client, replay);
      };
      const model = live(input.profile.model);
      const subModel = input.profile.subModel === undefined ? model : live(input.profile.subModel);
      const root =
        input.systemPrompt === undefined ? model : withSystemPrefix(model, input.systemPrompt);
      const { budget } = input;
      const rlm = createRLM({
        model: root,
        subModel,
        maxDepth: budget.maxDepth,
        maxIterations: budget.maxIterations,
        budget: {
          maxTokens: budget.maxTokens,
          maxCostUsd: budget.maxCostUsd,
          maxWallTimeMs: budget.maxWallTimeMs,
          maxSubcalls: budget.maxSubcalls,
        },
        tools: { ...(input.tools ?? {}) },
        trajectory: callbackSink(input.onTrajectory),
        onEvent: input.onEvent,
        generateId: () => input.runId,
        isolation,
      });
      return rlm.completion(input.context, { query: input.query, signal: input.signal });
    },
  };
}

function callbackSink(write: (record: TrajectoryRecord) => void): TrajectorySink {
  return { write, async close() {} };
}

/** A model whose requests carry `prefix` before the system prompt the executor built. */
function withSystemPrefix(model: LanguageModel, prefix: string): LanguageModel {
  return {
    id: model.id,
    ...(model.contextWindow === undefined ? {} : { contextWindow: model.contextWindow }),
    complete(request) {
      const system = request.system === undefined ? prefix : `${prefix}\n\n${request.system}`;
      return model.complete({ ...request, system });
    },
  };
}
