import {
  type AnthropicEffort,
  type CallCacheStores,
  createRunner,
  type RunnerModelResolver,
  type ToolDefinition,
} from '@rlm/executor';
import { mcpToolOpener } from '@rlm/mcp';
import { type CallCacheStore, createStore } from '@rlm/memory';
import type { LanguageModel, ReplLanguage } from '@rlm/protocol';
import { findTrajectoryHeader, replayingModel, responseReplay } from '@rlm/trace';
import type { RunEngine } from './run-engine.js';
import { serverRunSettings } from './server-run-settings.js';

/** A profile's settings for its `anthropic/` clients. */
export interface ProfileModelOptions {
  thinking?: { type: 'enabled'; budgetTokens: number };
  effort?: AnthropicEffort;
}

/**
 * Turns a profile's model id into a client (production: `@rlm/executor`'s `resolveModel`).
 * `repl` is the profile's REPL language, which offline `testkit:` policies write code in.
 */
export type ModelResolver = (
  modelId: string,
  options?: ProfileModelOptions & { repl?: ReplLanguage },
) => LanguageModel;

export interface ExecutorEngineOptions {
  resolveModel: ModelResolver;
  /**
   * The sub-call cache stores profiles may name: the server's store (`sqlite` or `postgres`);
   * `memory` is one per engine, shared by its runs, unless given.
   */
  callCaches?: CallCacheStores;
  /** Sandbox placement; `worker` keeps a spinning block off the server's event loop. @default 'worker' */
  isolation?: 'worker' | 'inline';
}

/**
 * The production `RunEngine`: each run goes through `@rlm/executor`'s runner with the profile and
 * capped budget as its settings, the server's run id as the root run id, events and trajectory
 * records handed to the server as they happen, and the server's run store for a checkpoint after
 * every root turn. A restarted run continues from its latest checkpoint; one killed before its
 * first checkpoint runs again from its first turn, its recorded model responses answering the same
 * requests again. An agent turn's layered system prompt goes before the REPL instructions on
 * root-model calls. The cost cap the server puts on every run is left out for a profile whose
 * model has no known price (a local server): it could not be enforced.
 */
export function createExecutorEngine({
  resolveModel,
  isolation = 'worker',
  callCaches = {},
}: ExecutorEngineOptions): RunEngine {
  // Each run has a runner of its own; a memory cache must outlive them to be worth having.
  let memoryCache: Promise<CallCacheStore> | undefined;
  const cacheStores = async (profile: { cache?: { store: string } | undefined }) => {
    if (profile.cache?.store !== 'memory' || callCaches.memory !== undefined) return callCaches;
    memoryCache ??= createStore({ kind: 'memory' }).then((store) => store.callCache);
    return { ...callCaches, memory: await memoryCache };
  };
  return {
    async run(input) {
      const replay = input.recorded === undefined ? undefined : responseReplay(input.recorded);
      const resolve: RunnerModelResolver = (id, options) => resolveModel(id, options);
      const runner = createRunner({
        resolveModel: resolve,
        ...(input.runStore === undefined ? {} : { runStore: input.runStore }),
        trajectory: { write: input.onTrajectory, async close() {} },
        isolation,
        unpricedCostCap: 'omit',
        callCaches: await cacheStores(input.profile),
      });
      const settings = serverRunSettings(input.profile, input.budget, input);
      const runInput = {
        context: input.context,
        signal: input.signal,
        onEvent: input.onEvent,
        tools: (input.tools ?? {}) as Readonly<Record<string, ToolDefinition>>,
        toolSets: (input.profile.mcp ?? []).map((server) => mcpToolOpener(server)),
        ...(input.systemPrompt === undefined ? {} : { systemPromptPrefix: input.systemPrompt }),
        ...(replay === undefined
          ? {}
          : { wrapModel: (client: LanguageModel) => replayingModel(client, replay) }),
      };
      // The earlier attempt started the run (its header and run-start are stored): go on with it.
      const rerun = findTrajectoryHeader(input.recorded ?? []) !== undefined;
      if (input.resume === true) {
        // The server's leases decided this run goes on; a run without a usable checkpoint starts
        // over as the same run (nothing of it was emitted twice).
        return runner.resume(input.runId, settings, {
          ...runInput,
          query: input.query,
          rerun,
          withoutCheckpoint: 'rerun',
          statusChecked: true,
        });
      }
      return runner.run(settings, { ...runInput, runId: input.runId, query: input.query, rerun });
    },
  };
}
