import { createRLM, type TrajectorySink } from '@rlm/executor';
import { type LanguageModel, RlmError, type RunEvent, type TrajectoryRecord } from '@rlm/protocol';
import { replayingModel, responseReplay } from './response-replay.js';
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
 * checkpoint starts over, its recorded model responses answering the same requests again. An agent
 * turn's layered system prompt is put in front of the RLM's own REPL instructions on root-model
 * calls only (sub-calls keep their plain prompts).
 */
export function createExecutorEngine({
  resolveModel,
  isolation = 'worker',
}: ExecutorEngineOptions): RunEngine {
  return {
    async run(input) {
      const { root, subModel } = runModels(input, resolveModel);
      const output = runOutput(input);
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
        trajectory: output.sink,
        onEvent: output.onEvent,
        ...(input.runStore === undefined ? {} : { runStore: input.runStore }),
        generateId: () => input.runId,
        isolation,
      });
      const { context, query, signal } = input;
      if (input.resume === true) {
        output.resuming = true;
        try {
          return await rlm.resume(input.runId, { context, signal });
        } catch (error) {
          // A checkpoint this version cannot read (or none): start over with the replay. It fails
          // before the run starts, so nothing was emitted twice.
          if (!RlmError.is(error, 'executor.no_checkpoint')) throw error;
          output.resuming = false;
        }
      }
      return rlm.completion(context, { query, signal });
    },
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
): { root: LanguageModel; subModel: LanguageModel } {
  const replay = input.recorded === undefined ? undefined : responseReplay(input.recorded);
  const live = (id: string) => {
    const client = resolveModel(id);
    return replay === undefined ? client : replayingModel(client, replay);
  };
  const model = live(input.profile.model);
  const subModel = input.profile.subModel === undefined ? model : live(input.profile.subModel);
  const root =
    input.systemPrompt === undefined ? model : withSystemPrefix(model, input.systemPrompt);
  return { root, subModel };
}

/**
 * The events and trajectory records the engine hands to the server. A restarted run continues
 * what is stored under its id: its trajectory has a header already, and a resumed run keeps the
 * `run-start` it had (the executor emits a second one when it resumes; the server's restart notice
 * marks the restart instead), so its log reads as one run whose turns go on where they stopped.
 */
function runOutput(input: RunEngineInput): {
  resuming: boolean;
  onEvent: (event: RunEvent) => void;
  sink: TrajectorySink;
} {
  const restarted = input.resume === true || input.recorded !== undefined;
  const output = {
    resuming: false,
    onEvent(event: RunEvent) {
      if (!repeatsStart(event)) input.onEvent(event);
    },
    sink: {
      write(record: TrajectoryRecord) {
        if (record.kind === 'header' && restarted) return;
        if (record.kind === 'event' && repeatsStart(record.event)) return;
        input.onTrajectory(record);
      },
      async close() {},
    },
  };
  const repeatsStart = (event: RunEvent) =>
    output.resuming && event.type === 'run-start' && event.depth === 0;
  return output;
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
