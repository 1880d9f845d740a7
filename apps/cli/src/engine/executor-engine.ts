import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { RLM, RLMConfig } from '@rlm/executor';
import type { Store } from '@rlm/memory';
import {
  type JsonValue,
  type LanguageModel,
  type ReplLanguage,
  type RLMChatCompletion,
  RlmError,
  type RunEvent,
} from '@rlm/protocol';
import type { CliConfig } from '../config/config-schema.js';
import { openMcpTools } from './open-mcp-tools.js';
import type { ResumableRun, ResumeRequest, RunEngine, RunRequest } from './run-engine.js';
import { toContextPayloads } from './to-context-payloads.js';

export interface ExecutorEngineOptions {
  /** Model ids to clients. @default resolveCliModel */
  resolveModel?: ModelResolver;
}

type ModelResolver = (
  id: string,
  env: Readonly<Record<string, string | undefined>>,
  options?: AnthropicModelOptions & { repl?: ReplLanguage },
) => LanguageModel;

/** What `--thinking-budget` and `--effort` give Anthropic clients. */
interface AnthropicModelOptions {
  thinking?: { type: 'enabled'; budgetTokens: number };
  effort?: CliConfig['effort'];
}

/**
 * Statuses a stored run can be continued from: killed while running, cancelled with Ctrl-C,
 * stopped by a budget or its wall time (resumed with a larger one), or interrupted.
 */
const RESUMABLE = new Set(['running', 'cancelled', 'budget_exceeded', 'timeout', 'interrupted']);

/** Runs `rlm run` and `rlm resume` requests with @rlm/executor's `createRLM`. */
export function createExecutorEngine(options: ExecutorEngineOptions = {}): RunEngine {
  // Loaded on first use: the executor and its provider SDKs are most of the start-up time,
  // which `--help`, `config` and `trace` should not pay.
  async function modelsFor(request: RunRequest | ResumeRequest) {
    const resolveModel =
      options.resolveModel ?? (await import('./resolve-cli-model.js')).resolveCliModel;
    const { config, env } = request;
    const anthropicOptions = anthropicOptionsOf(config);
    // Offline testkit policies write code in the run's REPL language.
    const priced = (id: string) =>
      withPricing(
        resolveModel(id, env, {
          ...(id.startsWith('anthropic/') ? anthropicOptions : {}),
          repl: config.repl,
        }),
        config,
        id,
      );
    const model = priced(config.model);
    const subModel = config.subModel === undefined ? undefined : priced(config.subModel);
    return { model, subModel };
  }

  async function openStore(path: string): Promise<Store> {
    const { createStore } = await import('@rlm/memory');
    mkdirSync(dirname(path), { recursive: true });
    return createStore({ kind: 'sqlite', path });
  }

  /** Builds the RLM over an open store (models resolved: this is where credentials are needed). */
  async function rlmFor(
    request: RunRequest | ResumeRequest,
    {
      store,
      models: { model, subModel },
      tools,
      onEvent,
    }: {
      store: Store;
      models: Awaited<ReturnType<typeof modelsFor>>;
      tools: RLMConfig['tools'];
      onEvent: (event: RunEvent) => void;
    },
  ): Promise<RLM> {
    const { createRLM } = await import('@rlm/executor');
    const { config } = request;
    assertCostBudgetPriced(config, [model, subModel]);
    return createRLM({
      model,
      ...(subModel === undefined ? {} : { subModel }),
      maxDepth: config.maxDepth,
      maxIterations: config.maxIterations,
      promptMode: config.mode,
      repl: config.repl,
      drivers: request.drivers,
      tools,
      contextHelpers: config.tools,
      budget: budgetOf(config),
      ...(config.blockTimeoutMs === undefined
        ? {}
        : { limits: { blockTimeoutMs: config.blockTimeoutMs } }),
      trajectory: { dir: request.trajectoryDir },
      runStore: store.runs,
      generateId: () => request.runId,
      onEvent,
    });
  }

  /**
   * Runs `start` with the request's MCP tools open (closed when it ends), reporting the answer as
   * text: a typed answer as the JSON text its `final-answer` event recorded.
   */
  async function withRunTools(
    request: RunRequest | ResumeRequest,
    start: (input: {
      tools: RLMConfig['tools'];
      onEvent: (event: RunEvent) => void;
    }) => Promise<{ answer: unknown } & Omit<RLMChatCompletion, 'answer'>>,
  ): Promise<RLMChatCompletion> {
    const mcp = await openMcpTools(request.mcpServers ?? [], {
      tools: request.tools,
      signal: request.signal,
      ...(request.mcpPrefix === undefined ? {} : { prefix: request.mcpPrefix }),
    });
    let answerText: string | null = null;
    try {
      const result = await start({
        tools: mcp.tools,
        onEvent: (event) => {
          if (event.type === 'final-answer' && event.depth === 0) answerText = event.answer;
          request.onEvent(event);
        },
      });
      return {
        ...result,
        answer: result.answer === null ? null : (answerText ?? JSON.stringify(result.answer)),
      };
    } finally {
      await mcp.close();
    }
  }

  return {
    async run(request) {
      const store = await openStore(request.runStorePath);
      try {
        // Credentials first: a missing key fails before any MCP server is started.
        const models = await modelsFor(request);
        return await withRunTools(request, async ({ tools, onEvent }) => {
          const rlm = await rlmFor(request, { store, models, tools, onEvent });
          // Recorded before the run starts, so `rlm resume` can reuse the same configuration.
          await store.runs.createRun({
            id: request.runId,
            config: { cli: recordable(request.config) },
          });
          const { context, contexts } = toContextPayloads(request.contexts);
          return rlm.completion(context, {
            query: request.query,
            contexts,
            signal: request.signal,
            output: request.output,
          });
        });
      } finally {
        await store.close();
      }
    },
    async findResumable(runId, runStorePath) {
      const store = await openStore(runStorePath);
      try {
        return await findResumable(store, { runId, runStorePath });
      } finally {
        await store.close();
      }
    },
    async resume(request) {
      const store = await openStore(request.runStorePath);
      try {
        await findResumable(store, request);
        await checkContexts(store, request);
        const models = await modelsFor(request);
        return await withRunTools(request, async ({ tools, onEvent }) => {
          const rlm = await rlmFor(request, { store, models, tools, onEvent });
          return rlm.resume(request.runId, {
            ...toContextPayloads(request.contexts),
            signal: request.signal,
            output: request.output,
          });
        });
      } finally {
        await store.close();
      }
    },
  };
}

/** The stored run, if it can be resumed; one sentence with the fix when it cannot. */
async function findResumable(
  store: Store,
  { runId, runStorePath }: { runId: string; runStorePath: string },
): Promise<ResumableRun> {
  const record = await store.runs.getRun(runId);
  if (record === undefined) {
    throw usageError(
      `There is no run ${runId} in ${runStorePath}; pass the id of a run rlm run started (its trajectory file is named after it), or --run-store if it used another store.`,
      'run-id',
    );
  }
  if (!RESUMABLE.has(record.status)) {
    throw usageError(
      `Run ${runId} already finished (${record.status}); only an interrupted run, or one a budget stopped, can be resumed.`,
      'run-id',
    );
  }
  return { runId, status: record.status, config: record.config };
}

/** Checks the contexts against the run's checkpoint before any model (or key) is needed. */
async function checkContexts(store: Store, request: ResumeRequest): Promise<void> {
  const { checkResumable } = await import('@rlm/executor');
  const { runId } = request;
  try {
    await checkResumable(store.runs, { runId, ...toContextPayloads(request.contexts) });
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

/**
 * The client for `id`, priced from `--input-price`/`--output-price` when the client knows no
 * price of its own (a local server, an unknown model).
 */
function withPricing(model: LanguageModel, config: CliConfig, id: string): LanguageModel {
  const { inputPricePerMTok, outputPricePerMTok } = config;
  if (inputPricePerMTok === undefined && outputPricePerMTok === undefined) return model;
  if (inputPricePerMTok === undefined || outputPricePerMTok === undefined) {
    throw usageError(
      `--input-price and --output-price go together (USD per million tokens); pass both for ${id}.`,
      inputPricePerMTok === undefined ? '--input-price' : '--output-price',
    );
  }
  if (model.pricing !== undefined || model.reportsCost === true) return model;
  return {
    ...model,
    pricing: { inputPerMTok: inputPricePerMTok, outputPerMTok: outputPricePerMTok },
    complete: (request) => model.complete(request),
  };
}

/**
 * The thinking budget and effort for `anthropic/` models; refused when no model of the run is one
 * (they would be ignored).
 */
function anthropicOptionsOf(config: CliConfig): AnthropicModelOptions {
  const { thinkingBudget, effort } = config;
  if (thinkingBudget === undefined && effort === undefined) return {};
  const ids = [config.model, config.subModel ?? config.model];
  if (!ids.some((id) => id.startsWith('anthropic/'))) {
    throw usageError(
      `--thinking-budget and --effort apply to anthropic/ models; ${config.model} is not one.`,
      thinkingBudget === undefined ? '--effort' : '--thinking-budget',
    );
  }
  return {
    ...(thinkingBudget === undefined
      ? {}
      : { thinking: { type: 'enabled', budgetTokens: thinkingBudget } }),
    ...(effort === undefined ? {} : { effort }),
  };
}

/** A cost budget needs every model's price: say which flags give it, before anything runs. */
function assertCostBudgetPriced(
  config: CliConfig,
  models: readonly (LanguageModel | undefined)[],
): void {
  if (config.maxCostUsd === undefined) return;
  for (const model of models) {
    if (model === undefined || model.pricing !== undefined || model.reportsCost === true) continue;
    throw new RlmError({
      code: 'config.invalid',
      message: `--max-cost needs the price of ${model.id}, which rlm does not know; pass --input-price and --output-price (USD per million tokens), or leave out --max-cost.`,
      details: {
        source: 'the command line',
        issues: [`--max-cost: the price of ${model.id} is unknown`],
      },
    });
  }
}

/** The configuration a resumed run reuses: all of it but where runs are stored and how progress shows. */
function recordable(config: CliConfig): Record<string, JsonValue> {
  const { runStore: _store, progress: _progress, ...rest } = config;
  return JSON.parse(JSON.stringify(rest)) as Record<string, JsonValue>;
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
