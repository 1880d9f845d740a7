import { buildFlatPrompt, buildSystemPrompt, type SystemPromptOptions } from '@rlm/prompts';
import type { LanguageModel, ReplLanguage } from '@rlm/protocol';
import type { ResolvedRLMConfig } from '../config/rlm-config.js';
import type { OutputSpec } from '../output/output-spec.js';

/** True when the root gets the background-task verbs: `dispatcher`, else coordinator mode. */
export function dispatcherEnabled(config: ResolvedRLMConfig): boolean {
  return config.dispatcher ?? config.promptMode === 'coordinator';
}

/** Iterations an invocation at `depth` gets. */
export function iterationsFor(config: ResolvedRLMConfig, depth: number): number {
  return config.iterationsForDepth?.[depth] ?? config.maxIterations;
}

/** The model a background task runs on when `delegate` names none: `dispatch.model`, else the sub-model. */
export function taskModel(config: ResolvedRLMConfig): LanguageModel {
  return config.dispatch.model ?? config.subModel ?? config.model;
}

/** Every model code may name with `opts.model`, the root model first, without duplicates. */
export function availableModels(config: ResolvedRLMConfig): LanguageModel[] {
  const all = [
    config.model,
    config.subModel ?? config.model,
    ...(config.dispatch.model === undefined ? [] : [config.dispatch.model]),
    ...config.models,
  ];
  return all.filter((model, index) => all.findIndex((other) => other.id === model.id) === index);
}

/** The configured tools an invocation may call: all, or those named in `toolNames`. */
export function allowedTools(
  config: ResolvedRLMConfig,
  toolNames?: readonly string[],
): [string, ResolvedRLMConfig['tools'][string]][] {
  return Object.entries(config.tools).filter(
    ([name]) => toolNames === undefined || toolNames.includes(name),
  );
}

function sharedOptions(
  config: ResolvedRLMConfig,
  { depth, repl, toolNames }: { depth: number; repl: ReplLanguage; toolNames?: readonly string[] },
) {
  const models = availableModels(config);
  return {
    depth,
    repl,
    maxDepth: config.maxDepth,
    contextHelpers: config.contextHelpers,
    childBudget: iterationsFor(config, depth + 1),
    tools: allowedTools(config, toolNames).map(([name, tool]) => ({
      name,
      description: tool.description,
      ...(tool.signature === undefined ? {} : { signature: tool.signature }),
    })),
    models:
      models.length > 1
        ? models.map((model, index) => ({
            id: model.id,
            ...(index === 0 ? { default: true } : {}),
          }))
        : [],
  };
}

/** What the root's prompt is built from (see `rootSystemPrompt`). */
export function rootPromptOptions(
  config: ResolvedRLMConfig,
  { output, repl = config.repl }: { output?: OutputSpec | undefined; repl?: ReplLanguage } = {},
): SystemPromptOptions {
  return {
    ...sharedOptions(config, { depth: 0, repl }),
    mode: config.promptMode,
    dispatcher: dispatcherEnabled(config),
    drivers: config.drivers as SystemPromptOptions['drivers'],
    model: config.model.id,
    ...(output === undefined ? {} : { output: output.jsonSchema }),
  };
}

/**
 * The root's system prompt: the configured mode, with the answer format of a typed answer and
 * drivers, after the caller's prefix, for a REPL in `repl` (the configured language, or a resumed
 * run's recorded one).
 */
export function rootSystemPrompt(
  config: ResolvedRLMConfig,
  options: { output?: OutputSpec | undefined; repl?: ReplLanguage } = {},
): string {
  const own = buildSystemPrompt(rootPromptOptions(config, options));
  return config.systemPromptPrefix === undefined ? own : `${config.systemPromptPrefix}\n\n${own}`;
}

/** What a child's prompt is built from (see `childSystemPrompt`). */
export function childPromptOptions(
  config: ResolvedRLMConfig,
  {
    depth,
    systemPrompt,
    toolNames,
    repl,
  }: {
    depth: number;
    systemPrompt?: string | undefined;
    toolNames?: readonly string[] | undefined;
    repl: ReplLanguage;
  },
): SystemPromptOptions {
  const own = systemPrompt?.trim();
  return {
    ...sharedOptions(config, { depth, repl, ...(toolNames === undefined ? {} : { toolNames }) }),
    mode: 'solver',
    ...(own === undefined || own === '' ? {} : { systemPrompt: own }),
  };
}

/** A child's system prompt: always a solver; a specialist when the caller passed `systemPrompt`. */
export function childSystemPrompt(
  config: ResolvedRLMConfig,
  options: {
    depth: number;
    systemPrompt?: string | undefined;
    toolNames?: readonly string[] | undefined;
    repl: ReplLanguage;
  },
): string {
  return buildSystemPrompt(childPromptOptions(config, options));
}

/** The one-shot prompt `rlm_query` uses at the depth limit. */
export function flatSystemPrompt(systemPrompt?: string): string {
  return buildFlatPrompt({ systemPrompt });
}
