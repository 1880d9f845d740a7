import { randomUUID } from 'node:crypto';
import type { CallCacheStore } from '@rlm/memory';
import {
  type JsonValue,
  parseSchema,
  type RLMChatCompletion,
  RlmError,
  type RunEvent,
  type RunSettings,
  type RunSettingsInput,
  runSettingsSchema,
} from '@rlm/protocol';
import type { CachedModelOptions } from '../cache/cached-model.js';
import { createCallFlights } from '../cache/call-flights.js';
import { memoryCallCache } from '../cache/memory-call-cache.js';
import { openRunCache } from '../cache/open-run-cache.js';
import { createRLM, type RLM } from '../create-rlm.js';
import { type OutputSchema, outputFromJsonSchema } from '../output/output-spec.js';
import { findResumableRun } from './find-resumable-run.js';
import { openRunTools } from './open-run-tools.js';
import { allPriced, assertCostCapPriced, type RunModels, resolveRunModels } from './run-models.js';
import { runnerRlmConfig } from './runner-rlm-config.js';
import type { CreateRunnerOptions, ResumeInput, RunInput, Runner } from './runner-types.js';

/**
 * The one place settings become a run. Every door (CLI, server, MCP, eval) parses its input into
 * `RunSettings` and calls this; the decisions doors used to make each on their own are made here
 * once: model ids to clients (with prices, thinking and effort), a cost cap on an unpriced model,
 * tool sets opened and closed around the run, resume or run again, a typed answer as text, and
 * which stored runs can be continued.
 *
 * @example
 * const runner = createRunner({ resolveModel: (id) => resolveModel(id, { env: process.env }) });
 * const result = await runner.run({ model: 'anthropic/claude-sonnet-4-5' }, { context, query });
 */
export function createRunner(options: CreateRunnerOptions): Runner {
  const { runStore } = options;
  // Shared by every run of this runner: identical sub-calls in flight at once are sent once.
  const flights = createCallFlights();
  let memoryCache: Promise<CallCacheStore> | undefined;
  const openMemoryCache = () => {
    memoryCache ??= memoryCallCache();
    return memoryCache;
  };

  async function cacheOf(
    settings: RunSettings,
    treeId: string,
  ): Promise<CachedModelOptions | undefined> {
    if (settings.cache === undefined) return undefined;
    const store = await openRunCache(settings.cache, options.callCaches ?? {}, openMemoryCache);
    return { store, settings: settings.cache, treeId, flights };
  }

  async function start(
    settings: RunSettings,
    input: RunInput | (ResumeInput & { runId: string }),
    go: (
      rlm: RLM<OutputSchema | undefined>,
      output: OutputSchema | undefined,
    ) => Promise<{ answer: unknown } & Omit<RLMChatCompletion, 'answer'>>,
  ): Promise<RLMChatCompletion> {
    input.signal?.throwIfAborted();
    const output =
      input.output ??
      (settings.outputSchema === undefined
        ? undefined
        : outputFromJsonSchema(settings.outputSchema, { source: 'outputSchema' }));
    const cache = await cacheOf(settings, input.runId ?? randomUUID());
    // Credentials are read here, before any tool server starts.
    const models = resolveRunModels(settings, options, { wrapModel: input.wrapModel, cache });
    const costCapped = costCap(settings, models);
    const opened = settings.tools
      ? await openRunTools(input)
      : { tools: {}, close: async () => undefined };
    let answerText: string | null = null;
    try {
      const rlm = createRLM<OutputSchema | undefined>(
        runnerRlmConfig(settings, {
          models,
          tools: opened.tools,
          input,
          costCapped,
          runner: options,
          onEvent: (event: RunEvent) => {
            if (event.type === 'final-answer' && event.depth === 0) answerText = event.answer;
            return input.onEvent?.(event);
          },
        }),
      );
      const result = await go(rlm, output);
      return {
        ...result,
        answer:
          result.answer === null
            ? null
            : typeof result.answer === 'string' && output === undefined
              ? result.answer
              : (answerText ?? JSON.stringify(result.answer)),
      };
    } finally {
      await opened.close();
    }
  }

  /** The cap the run gets: refused, or left out, when a model's price is unknown. */
  function costCap(settings: RunSettings, models: RunModels): number | undefined {
    const cap = settings.limits.maxCostUsd;
    if (cap === undefined) return undefined;
    if (options.unpricedCostCap === 'omit' && !allPriced(models)) return undefined;
    assertCostCapPriced(settings, models, options.fieldNames);
    return cap;
  }

  const findResumable: Runner['findResumable'] = (runId, findOptions) =>
    findResumableRun(runStore, runId, findOptions);

  return {
    async run(input_settings, input) {
      const settings = parseSettings(input_settings);
      const runId = input.runId ?? randomUUID();
      if (runStore !== undefined && (await runStore.getRun(runId)) === undefined) {
        // Recorded before the run starts, so a resume can rebuild the same settings.
        await runStore.createRun({ id: runId, config: recordOf(settings, input.record) });
      }
      return start(settings, { ...input, runId }, (rlm, output) =>
        rlm.completion(input.context, {
          query: input.query,
          contexts: input.contexts,
          signal: input.signal,
          rerun: input.rerun === true,
          output,
        }),
      );
    },
    async resume(runId, input_settings, input) {
      const settings = parseSettings(input_settings);
      if (input.statusChecked !== true) {
        await findResumable(runId, { orphaned: input.orphaned === true });
      }
      return start(settings, { ...input, runId }, async (rlm, output) => {
        try {
          return await rlm.resume(runId, {
            context: input.context,
            contexts: input.contexts,
            signal: input.signal,
            output,
          });
        } catch (error) {
          if (
            input.withoutCheckpoint !== 'rerun' ||
            !RlmError.is(error, 'executor.no_checkpoint')
          ) {
            throw error;
          }
          // Stopped during its first turn: run it again as the same run (nothing was emitted).
          return rlm.completion(input.context, {
            query: input.query,
            contexts: input.contexts,
            signal: input.signal,
            rerun: input.rerun ?? true,
            output,
          });
        }
      });
    },
    findResumable,
  };
}

/**
 * Settings as the contract defines them.
 * @throws RlmError `config.invalid` naming every bad field
 */
function parseSettings(settings: RunSettingsInput): RunSettings {
  return parseSchema(runSettingsSchema, settings, { what: 'run settings', code: 'config.invalid' });
}

function recordOf(
  settings: RunSettings,
  extra: Readonly<Record<string, JsonValue>> = {},
): Record<string, JsonValue> {
  return { ...extra, settings: JSON.parse(JSON.stringify(settings)) as JsonValue };
}
