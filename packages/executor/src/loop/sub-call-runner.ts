import type { JsonValue, LanguageModel, ReplLanguage } from '@rlm/protocol';
import { emptyUsage } from '@rlm/protocol';
import type { RunNode } from '../run/run-node.js';
import { childRun } from './child-call.js';
import type { Invoke } from './invocation-spec.js';
import { oneShot } from './sub-call.js';
import type { SubCallOutcome } from './sub-call-outcome.js';
import { availableModels, flatSystemPrompt } from './system-prompts.js';

/** What code may pass to `rlm_query` (and `delegate`) besides the prompt. */
export interface RlmCallOptions {
  model?: string | undefined;
  systemPrompt?: string | undefined;
  context?: JsonValue | undefined;
  /** Names of the caller's tools the child may call (`delegate` only). */
  tools?: readonly string[] | undefined;
  /** The child's REPL language; the caller's when absent. */
  repl?: ReplLanguage | undefined;
}

/** How one call from code runs: the calling block's signal and the budget share. */
export interface CallSlot {
  signal: AbortSignal;
  shareCount: number;
}

/** Starts sub-calls of one invocation: plain model calls and child RLMs. */
export interface SubCallRunner {
  llm(
    prompt: string,
    options: { model?: string | undefined },
    signal: AbortSignal,
  ): Promise<SubCallOutcome>;
  rlm(prompt: string, options: RlmCallOptions, slot: CallSlot): Promise<SubCallOutcome>;
}

/** A child never gets a tool its caller lacks: the requested names within the caller's own. */
function childTools(
  own: readonly string[] | undefined,
  requested: readonly string[] | undefined,
): readonly string[] | undefined {
  if (requested === undefined) return own;
  return own === undefined ? requested : requested.filter((name) => own.includes(name));
}

/** The sub-call runner of one invocation, shared by its host functions and its background tasks. */
export function subCallRunner(
  node: RunNode,
  invoke: Invoke,
  {
    ownTools,
    repl,
    iterationsLeft,
  }: {
    /** The configured tools the calling invocation may call; all when absent. */
    ownTools?: readonly string[] | undefined;
    /** The calling invocation's turns left, a share of which its children get; unbounded when absent. */
    iterationsLeft?: (() => number) | undefined;
    /** The calling invocation's REPL language, which its children inherit. */
    repl: ReplLanguage;
  },
): SubCallRunner {
  const { config } = node.tree;
  const models = availableModels(config);

  function pickModel(name: string | undefined, fallback: LanguageModel): LanguageModel | string {
    if (name === undefined) return fallback;
    const model = models.find((candidate) => candidate.id === name);
    return (
      model ??
      `Error: unknown model '${name}'. Available: ${models.map((candidate) => candidate.id).join(', ')}`
    );
  }

  return {
    async llm(prompt, options, signal) {
      const model = pickModel(options.model, config.subModel ?? config.model);
      if (typeof model === 'string') return { text: model, ok: false, usage: emptyUsage() };
      return oneShot(node, { model, prompt, signal });
    },
    async rlm(prompt, options, slot) {
      const atLimit = node.depth + 1 >= config.maxDepth;
      const model = pickModel(
        options.model,
        atLimit ? (config.subModel ?? config.model) : config.model,
      );
      if (typeof model === 'string') return { text: model, ok: false, usage: emptyUsage() };
      if (atLimit) {
        const text =
          options.context === undefined
            ? prompt
            : `${prompt}\n\nContext:\n${typeof options.context === 'string' ? options.context : JSON.stringify(options.context)}`;
        return oneShot(node, {
          model,
          prompt: text,
          system: flatSystemPrompt(options.systemPrompt),
          signal: slot.signal,
        });
      }
      return childRun(node, {
        prompt,
        context: options.context,
        systemPrompt: options.systemPrompt,
        model,
        ...slot,
        invoke,
        toolNames: childTools(ownTools, options.tools),
        repl: options.repl ?? repl,
        parentIterationsLeft: iterationsLeft?.(),
      });
    },
  };
}
