import type { JsonValue, ReplLanguage } from '@rlm/protocol';
import type { ResolvedRLMConfig } from '../config/rlm-config.js';
import { dispatcherEnabled } from '../loop/system-prompts.js';

function compact(value: Record<string, unknown>): Record<string, JsonValue> {
  return JSON.parse(JSON.stringify(value)) as Record<string, JsonValue>;
}

/**
 * The part of a configuration a trajectory keeps: models by id only (a client object may hold a
 * key), tools by name and description, limits and budgets as given. Enough to re-run it in replay.
 * `repl` is the root's language (a resumed run keeps its recorded one).
 */
export function trajectoryConfig(
  config: ResolvedRLMConfig,
  repl: ReplLanguage = config.repl,
): Record<string, JsonValue> {
  return compact({
    model: config.model.id,
    subModel: (config.subModel ?? config.model).id,
    models: config.models.map((model) => model.id),
    maxDepth: config.maxDepth,
    maxIterations: config.maxIterations,
    iterationsForDepth: config.iterationsForDepth,
    promptMode: config.promptMode,
    // Only when given, so other runs' headers stay as they were; replay needs it to send the same prompt.
    ...(config.systemPromptPrefix === undefined
      ? {}
      : { systemPromptPrefix: config.systemPromptPrefix }),
    drivers: config.drivers.map((driver) =>
      typeof driver === 'string' ? driver : ((driver as { name?: string }).name ?? 'custom'),
    ),
    tools: Object.entries(config.tools).map(([name, tool]) => ({
      name,
      description: tool.description,
    })),
    budget: config.budget,
    limits: config.limits,
    maxConcurrency: config.maxConcurrency,
    firstTurnGuard: config.firstTurnGuard,
    codeLanguages: config.codeLanguages,
    isolation: config.isolation,
    // Only for Python, so the headers of JavaScript runs stay as they were.
    ...(repl === 'javascript' ? {} : { repl }),
    // Only when off, so the headers of runs with the helpers stay as they were.
    ...(config.contextHelpers ? {} : { contextHelpers: false }),
    // Coordination options only when used, so other runs' headers stay as they were.
    ...(dispatcherEnabled(config)
      ? { dispatcher: true, dispatch: recordedDispatch(config.dispatch) }
      : config.dispatcher === false
        ? { dispatcher: false }
        : {}),
    confidenceThreshold: config.confidenceThreshold,
    ...(config.compaction === undefined
      ? {}
      : { compaction: config.compaction, contextWindow: config.model.contextWindow }),
  });
}

/** The dispatch options as the header records them: the task model by its id. */
function recordedDispatch({ model, ...rest }: ResolvedRLMConfig['dispatch']) {
  return model === undefined ? rest : { ...rest, model: model.id };
}
