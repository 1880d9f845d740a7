import type { RLMConfig } from '@rlm/executor';
import type { LanguageModel } from '@rlm/protocol';
import type { CliConfig } from '../config/config-schema.js';
import type { RunEngine } from './run-engine.js';
import { toContextValue } from './to-context-value.js';

export interface ExecutorEngineOptions {
  /** Model ids to clients. @default resolveCliModel */
  resolveModel?: ModelResolver;
}

type ModelResolver = (
  id: string,
  env: Readonly<Record<string, string | undefined>>,
) => LanguageModel;

/** Runs `rlm run` requests with @rlm/executor's `createRLM`. */
export function createExecutorEngine(options: ExecutorEngineOptions = {}): RunEngine {
  return {
    async run(request) {
      // Loaded on first use: the executor and its provider SDKs are most of the start-up time,
      // which `--help`, `config` and `trace` should not pay.
      const { createRLM } = await import('@rlm/executor');
      const resolveModel =
        options.resolveModel ?? (await import('./resolve-cli-model.js')).resolveCliModel;
      const { config, env } = request;
      const model = resolveModel(config.model, env);
      const subModel =
        config.subModel === undefined ? undefined : resolveModel(config.subModel, env);
      const rlm = createRLM({
        model,
        ...(subModel === undefined ? {} : { subModel }),
        maxDepth: config.maxDepth,
        maxIterations: config.maxIterations,
        promptMode: config.mode,
        drivers: request.drivers,
        budget: budgetOf(config),
        ...(config.blockTimeoutMs === undefined
          ? {}
          : { limits: { blockTimeoutMs: config.blockTimeoutMs } }),
        trajectory: { dir: request.trajectoryDir },
        onEvent: (event) => request.onEvent(event),
      });
      return rlm.completion(toContextValue(request.contexts), {
        query: request.query,
        signal: request.signal,
      });
    },
  };
}

function budgetOf(config: CliConfig): NonNullable<RLMConfig['budget']> {
  return {
    ...(config.maxTokens === undefined ? {} : { maxTokens: config.maxTokens }),
    ...(config.maxCostUsd === undefined ? {} : { maxCostUsd: config.maxCostUsd }),
    ...(config.maxWallTimeMs === undefined ? {} : { maxWallTimeMs: config.maxWallTimeMs }),
    ...(config.maxSubcalls === undefined ? {} : { maxSubcalls: config.maxSubcalls }),
    ...(config.maxConsecutiveErrors === undefined
      ? {}
      : { maxConsecutiveErrors: config.maxConsecutiveErrors }),
  };
}
