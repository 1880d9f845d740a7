import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Runner, RunnerModelResolver } from '@rlm/executor';
import type { Store } from '@rlm/memory';
import {
  type JsonValue,
  type LanguageModel,
  type ModelPricing,
  type ReplLanguage,
  RlmError,
  type RunSettings,
} from '@rlm/protocol';
import type { CliConfig } from '../config/config-schema.js';
import { CLI_FIELD_NAMES, cliRunSettings } from './cli-run-settings.js';
import type { ResumableRun, ResumeRequest, RunEngine, RunRequest } from './run-engine.js';
import { toContextPayloads } from './to-context-payloads.js';

export interface ExecutorEngineOptions {
  /** Model ids to clients. @default resolveCliModel */
  resolveModel?: ModelResolver;
}

type ModelResolver = (
  id: string,
  env: Readonly<Record<string, string | undefined>>,
  options?: {
    thinking?: { type: 'enabled'; budgetTokens: number };
    effort?: CliConfig['effort'];
    repl?: ReplLanguage;
    /** `--input-price`/`--output-price`, which offline models bill at. */
    pricing?: ModelPricing;
  },
) => LanguageModel;

/**
 * Runs `rlm run`, `rlm resume` and `rlm mcp`'s delegated runs through @rlm/executor's runner: the
 * engine only opens the run store and maps the command line to the run contract; every decision
 * about the run is the runner's.
 */
export function createExecutorEngine(options: ExecutorEngineOptions = {}): RunEngine {
  async function openStore(path: string): Promise<Store> {
    const { createStore } = await import('@rlm/memory');
    mkdirSync(dirname(path), { recursive: true });
    return createStore({ kind: 'sqlite', path });
  }

  // Loaded on first use: the executor and its provider SDKs are most of the start-up time,
  // which `--help`, `config` and `trace` should not pay.
  async function runnerFor(
    request: RunRequest | ResumeRequest,
    store: Store,
    settings: RunSettings,
  ): Promise<Runner> {
    const { createRunner } = await import('@rlm/executor');
    // The runner resolves exactly these ids (a guest's `model` option picks among them).
    const ids = [
      settings.model,
      settings.subModel,
      settings.dispatch?.model,
      ...(settings.escalate ?? []),
    ];
    const resolve =
      options.resolveModel ??
      (await (await import('./load-cli-model-resolver.js')).loadCliModelResolver(ids));
    const resolveModel: RunnerModelResolver = (id, modelOptions) =>
      resolve(id, request.env, modelOptions);
    return createRunner({
      resolveModel,
      runStore: store.runs,
      trajectory: { dir: request.trajectoryDir },
      fieldNames: CLI_FIELD_NAMES,
      // The run store's file holds the sub-call cache too: every run on this machine shares it.
      callCaches: { sqlite: store.callCache },
    });
  }

  /** The request's MCP servers as tool sets the runner opens and closes around the run. */
  async function toolSetsOf(request: RunRequest | ResumeRequest) {
    const servers = request.mcpServers ?? [];
    if (servers.length === 0) return [];
    const { mcpToolOpener } = await import('@rlm/mcp');
    const options = request.mcpPrefix === undefined ? {} : { prefix: request.mcpPrefix };
    return servers.map((server) => mcpToolOpener(server, options));
  }

  return {
    async run(request) {
      const settings = request.settings ?? cliRunSettings(request.config);
      const store = await openStore(request.runStorePath);
      try {
        const runner = await runnerFor(request, store, settings);
        const { context, contexts } = toContextPayloads(request.contexts);
        return await runner.run(settings, {
          runId: request.runId,
          query: request.query,
          context,
          contexts,
          signal: request.signal,
          onEvent: request.onEvent,
          tools: request.tools,
          toolSets: await toolSetsOf(request),
          drivers: request.drivers,
          output: request.output,
          // Recorded with the run, so `rlm resume` can reuse the same configuration.
          record: { cli: recordable(request.config) },
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
      const settings = request.settings ?? cliRunSettings(request.config);
      const store = await openStore(request.runStorePath);
      try {
        await findResumable(store, request);
        await checkContexts(store, request);
        const runner = await runnerFor(request, store, settings);
        return await runner.resume(request.runId, settings, {
          ...toContextPayloads(request.contexts),
          signal: request.signal,
          onEvent: request.onEvent,
          tools: request.tools,
          toolSets: await toolSetsOf(request),
          drivers: request.drivers,
          output: request.output,
          // No other process holds a CLI run: one still marked running was killed.
          orphaned: true,
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
  const { findResumableRun } = await import('@rlm/executor');
  try {
    // No other process holds a CLI run: one still marked running was killed.
    const record = await findResumableRun(store.runs, runId, { orphaned: true });
    return { runId, status: record.status, config: record.config };
  } catch (error) {
    if (!RlmError.is(error, 'executor.not_resumable')) throw error;
    throw usageError(
      error.details.status === null
        ? `There is no run ${runId} in ${runStorePath}; pass the id of a run rlm run started (its trajectory file is named after it), or --run-store if it used another store.`
        : `Run ${runId} already finished (${error.details.status}); only an interrupted run, or one a budget stopped, can be resumed.`,
      'run-id',
    );
  }
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

/** The configuration a resumed run reuses: all of it but where runs are stored and how progress shows. */
function recordable(config: CliConfig): Record<string, JsonValue> {
  const { runStore: _store, progress: _progress, ...rest } = config;
  return JSON.parse(JSON.stringify(rest)) as Record<string, JsonValue>;
}

function usageError(message: string, option: string): RlmError {
  return new RlmError({ code: 'cli.usage', message, details: { option } });
}
