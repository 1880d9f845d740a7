import { costOfCall, type LanguageModel, RlmError, type RunSettings } from '@rlm/protocol';
import { type CachedModelOptions, withCallCache } from '../cache/cached-model.js';
import type { CreateRunnerOptions, RunInput, RunnerModelOptions } from './runner-types.js';

/** The root model and the sub-model of a run, resolved and priced. */
export interface RunModels {
  model: LanguageModel;
  subModel: LanguageModel | undefined;
  /** The model background tasks run on (`dispatch.model`), when the settings name one. */
  taskModel?: LanguageModel | undefined;
  /** The escalation ladder's models (`escalate`), cheapest first; absent when the run has none. */
  escalate?: readonly LanguageModel[] | undefined;
}

/**
 * Resolves the run's model ids (this is where credentials are read): thinking and effort go to
 * `anthropic/` clients only, the settings' price to clients that know none, the sub-call cache
 * in front of each (when the run has one), and every client through the door's wrapper.
 *
 * @throws RlmError `config.invalid` for thinking/effort without an Anthropic model, or a cost cap
 *   on a model whose price is unknown (unless the runner omits such caps)
 */
export function resolveRunModels(
  settings: RunSettings,
  { resolveModel, fieldNames = {} }: Pick<CreateRunnerOptions, 'resolveModel' | 'fieldNames'>,
  { wrapModel, cache }: Pick<RunInput, 'wrapModel'> & { cache?: CachedModelOptions | undefined },
): RunModels {
  const anthropicOptions = anthropicOptionsOf(settings, fieldNames);
  const resolve = (id: string) => {
    const options: RunnerModelOptions = {
      repl: settings.repl,
      ...(id.startsWith('anthropic/') ? anthropicOptions : {}),
      ...(settings.pricing === undefined ? {} : { pricing: settings.pricing }),
    };
    const priced = withPrice(resolveModel(id, options), settings);
    // Inside the door's wrapper: a replayed request is answered from its recording, not the cache.
    const client = cache === undefined ? priced : withCallCache(priced, cache);
    return wrapModel === undefined ? client : wrapModel(client);
  };
  const model = resolve(settings.model);
  const subModel = settings.subModel === undefined ? undefined : resolve(settings.subModel);
  const taskId = settings.dispatch?.model;
  return {
    model,
    subModel,
    ...(taskId === undefined ? {} : { taskModel: resolve(taskId) }),
    ...(settings.escalate === undefined ? {} : { escalate: settings.escalate.map(resolve) }),
  };
}

/** Every model a run's calls may go to. */
function runClients({ model, subModel, taskModel, escalate = [] }: RunModels) {
  return [model, subModel, taskModel, ...escalate];
}

/** Whether a model's calls have a cost: a price table, or a cost the provider reports. */
export function isPriced(client: LanguageModel): boolean {
  return client.pricing !== undefined || client.reportsCost === true;
}

/** Whether every model a call may go to has a price (or reports its own cost). */
export function allPriced(models: RunModels): boolean {
  return runClients(models).every((client) => client === undefined || isPriced(client));
}

/**
 * A cost cap needs a price for every model: say which field gives one, before anything runs.
 * @throws RlmError `config.invalid`
 */
export function assertCostCapPriced(
  settings: RunSettings,
  models: RunModels,
  fieldNames: CreateRunnerOptions['fieldNames'] = {},
): void {
  if (settings.limits.maxCostUsd === undefined) return;
  for (const client of runClients(models)) {
    if (client === undefined || client.pricing !== undefined || client.reportsCost === true)
      continue;
    const cap = fieldNames['limits.maxCostUsd'] ?? 'limits.maxCostUsd';
    const price = fieldNames.pricing ?? 'pricing (USD per million input and output tokens)';
    const issue = `${cap}: the price of ${client.id} is unknown, so a cost cap cannot be enforced; give ${price}, or leave out ${cap}`;
    throw new RlmError({
      code: 'config.invalid',
      message: `Invalid run settings: ${issue}`,
      details: { source: 'run settings', issues: [issue] },
    });
  }
}

function withPrice(model: LanguageModel, settings: RunSettings): LanguageModel {
  const { pricing } = settings;
  if (pricing === undefined || model.pricing !== undefined || model.reportsCost === true) {
    return model;
  }
  // The client bills nothing itself, so each reply is billed here from the given price: the
  // budget and the run's totals then count what the operator says the calls cost.
  return {
    ...model,
    pricing,
    async complete(request) {
      const response = await model.complete(request);
      if (response.costUsd !== undefined) return response;
      const { usage } = response;
      const costUsd = costOfCall(pricing, {
        inputTokens: usage.inputTokens,
        outputTokens: usage.outputTokens,
        cacheReadTokens: usage.cacheReadTokens,
        cacheWrite5mTokens: usage.cacheWriteTokens,
        cacheWrite1hTokens: 0,
      });
      return { ...response, costUsd };
    },
  };
}

function anthropicOptionsOf(
  settings: RunSettings,
  fieldNames: NonNullable<CreateRunnerOptions['fieldNames']>,
): Omit<RunnerModelOptions, 'repl'> {
  const { thinkingBudget, effort } = settings;
  if (thinkingBudget === undefined && effort === undefined) return {};
  const ids = [
    settings.model,
    settings.subModel ?? settings.model,
    settings.dispatch?.model ?? '',
    ...(settings.escalate ?? []),
  ];
  if (!ids.some((id) => id.startsWith('anthropic/'))) {
    const field =
      thinkingBudget === undefined
        ? (fieldNames.effort ?? 'effort')
        : (fieldNames.thinkingBudget ?? 'thinkingBudget');
    const issue = `${field}: thinking and effort apply to anthropic/ models; ${settings.model} is not one`;
    throw new RlmError({
      code: 'config.invalid',
      message: `Invalid run settings: ${issue}`,
      details: { source: 'run settings', issues: [issue] },
    });
  }
  return {
    ...(thinkingBudget === undefined
      ? {}
      : { thinking: { type: 'enabled', budgetTokens: thinkingBudget } }),
    ...(effort === undefined ? {} : { effort }),
  };
}
