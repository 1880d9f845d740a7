import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { RLM, RLMConfig } from '@rlm/executor';
import type { Store } from '@rlm/memory';
import { type LanguageModel, type RLMChatCompletion, RlmError } from '@rlm/protocol';
import type { CliConfig } from '../config/config-schema.js';
import type { ResumeRequest, RunEngine, RunRequest } from './run-engine.js';
import { toContextPayloads } from './to-context-payloads.js';

export interface ExecutorEngineOptions {
  /** Model ids to clients. @default resolveCliModel */
  resolveModel?: ModelResolver;
}

type ModelResolver = (
  id: string,
  env: Readonly<Record<string, string | undefined>>,
) => LanguageModel;

/** Statuses a stored run can be continued from: killed while running, or cancelled with Ctrl-C. */
const RESUMABLE = new Set(['running', 'cancelled']);

/** Runs `rlm run` and `rlm resume` requests with @rlm/executor's `createRLM`. */
export function createExecutorEngine(options: ExecutorEngineOptions = {}): RunEngine {
  /** Opens the run store, builds the RLM over it, and closes the store when `use` ends. */
  async function withRlm(
    request: RunRequest | ResumeRequest,
    use: (rlm: RLM, store: Store) => Promise<RLMChatCompletion>,
  ): Promise<RLMChatCompletion> {
    // Loaded on first use: the executor and its provider SDKs are most of the start-up time,
    // which `--help`, `config` and `trace` should not pay.
    const { createRLM } = await import('@rlm/executor');
    const { createStore } = await import('@rlm/memory');
    const resolveModel =
      options.resolveModel ?? (await import('./resolve-cli-model.js')).resolveCliModel;
    const { config, env } = request;
    const model = resolveModel(config.model, env);
    const subModel = config.subModel === undefined ? undefined : resolveModel(config.subModel, env);
    mkdirSync(dirname(request.runStorePath), { recursive: true });
    const store = await createStore({ kind: 'sqlite', path: request.runStorePath });
    try {
      const rlm = createRLM({
        model,
        ...(subModel === undefined ? {} : { subModel }),
        maxDepth: config.maxDepth,
        maxIterations: config.maxIterations,
        promptMode: config.mode,
        drivers: request.drivers,
        tools: request.tools,
        contextHelpers: config.tools,
        budget: budgetOf(config),
        ...(config.blockTimeoutMs === undefined
          ? {}
          : { limits: { blockTimeoutMs: config.blockTimeoutMs } }),
        trajectory: { dir: request.trajectoryDir },
        runStore: store.runs,
        onEvent: (event) => request.onEvent(event),
      });
      return await use(rlm, store);
    } finally {
      await store.close();
    }
  }

  return {
    run: (request) =>
      withRlm(request, (rlm) => {
        const { context, contexts } = toContextPayloads(request.contexts);
        return rlm.completion(context, { query: request.query, contexts, signal: request.signal });
      }),
    resume: (request) => withRlm(request, (rlm, store) => resumeRun(rlm, store, request)),
  };
}

/** Checks the stored run can be continued, then resumes it, explaining each refusal in one sentence. */
async function resumeRun(
  rlm: RLM,
  store: Store,
  request: ResumeRequest,
): Promise<RLMChatCompletion> {
  const { runId } = request;
  const record = await store.runs.getRun(runId);
  if (record === undefined) {
    throw usageError(
      `There is no run ${runId} in ${request.runStorePath}; pass the id of a run rlm run started (its trajectory file is named after it), or --run-store if it used another store.`,
      'run-id',
    );
  }
  if (!RESUMABLE.has(record.status)) {
    throw usageError(
      `Run ${runId} already finished (${record.status}); only an interrupted run can be resumed.`,
      'run-id',
    );
  }
  try {
    return await rlm.resume(runId, {
      ...toContextPayloads(request.contexts),
      signal: request.signal,
    });
  } catch (error) {
    if (RlmError.is(error, 'executor.no_checkpoint')) {
      throw usageError(
        `Run ${runId} has nothing to resume: it was interrupted before its first turn finished; start it again with rlm run.`,
        'run-id',
      );
    }
    if (RlmError.is(error, 'executor.replay_divergence')) {
      throw usageError(
        `The context is not the one run ${runId} started with; pass the same --context arguments as the original run.`,
        '--context',
      );
    }
    throw error;
  }
}

function usageError(message: string, option: string): RlmError {
  return new RlmError({ code: 'cli.usage', message, details: { option } });
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
