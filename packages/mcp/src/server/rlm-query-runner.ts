import type { RunInput, Runner } from '@rlm/executor';
import {
  applyCallerChoices,
  type CallerChoices,
  definedEntries,
  type JsonValue,
  type ReplLanguage,
  type RLMChatCompletion,
  type RunEvent,
  type RunMode,
  type RunSettingsInput,
  runSettingsSchema,
} from '@rlm/protocol';

/** One delegated run as `rlm_query` asks for it. */
export interface RlmQueryRequest {
  query: string;
  /** The loaded context (inline text and files, joined). */
  context: string;
  /** A model id (or, on the HTTP server, a profile name) among those the operator allowed. */
  model?: string | undefined;
  /**
   * The escalation ladder, cheapest first: model ids (on the HTTP server, profile names), each
   * among those the operator allowed, like `model`.
   */
  escalate?: readonly string[] | undefined;
  /** With a ladder (the caller's or the operator's): failing turns in a row before a child escalates. */
  escalateAfterErrors?: number | undefined;
  maxDepth?: number | undefined;
  maxIterations?: number | undefined;
  maxCostUsd?: number | undefined;
  maxTokens?: number | undefined;
  mode?: RunMode | undefined;
  drivers?: readonly string[] | undefined;
  repl?: ReplLanguage | undefined;
  /** A JSON Schema the answer must match (the answer is then its JSON text). */
  outputSchema?: Record<string, JsonValue> | undefined;
  signal: AbortSignal;
  onEvent(event: RunEvent): void;
}

/**
 * Runs one delegated `rlm_query` to its end, resolving (never rejecting) with its outcome for
 * failures inside the run. Apps pass their own (the CLI's engine records the run and its
 * trajectory; the server's run manager queues it); `rlmQueryRunner` is the plain one.
 */
export type RlmQueryRunner = (request: RlmQueryRequest) => Promise<RLMChatCompletion>;

/**
 * What a client asked for, as the run contract's caller choices: everything a caller may choose,
 * nothing it may not (no endpoint, no key, no price).
 */
export function callerChoicesOf(request: RlmQueryRequest): CallerChoices {
  const limits = definedEntries({
    maxDepth: request.maxDepth,
    maxIterations: request.maxIterations,
    maxCostUsd: request.maxCostUsd,
    maxTokens: request.maxTokens,
  });
  return definedEntries({
    model: request.model,
    mode: request.mode,
    drivers: request.drivers === undefined ? undefined : [...request.drivers],
    repl: request.repl,
    outputSchema: request.outputSchema,
    escalate: request.escalate === undefined ? undefined : [...request.escalate],
    escalateAfterErrors: request.escalateAfterErrors,
    limits: Object.keys(limits).length === 0 ? undefined : limits,
  });
}

/** Options of `rlmQueryRunner`. */
export interface RlmQueryRunnerOptions {
  /** The runner every delegated run goes through (`createRunner` from @rlm/executor). */
  runner: Runner;
  /** The operator's run settings; a client's choices only go on top of them. */
  settings: RunSettingsInput;
  /**
   * Model ids a client may choose besides `settings.model`. Empty by default: a client may choose
   * nothing but the configured model, so it can never send the operator's key somewhere else.
   */
  allowedModels?: readonly string[] | undefined;
  /** What else each run gets (host tools, parsed drivers). */
  runInput?: Pick<RunInput, 'tools' | 'toolSets' | 'drivers'> | undefined;
}

/**
 * The plain runner of `rlm_query`: the operator's settings with the client's allowed choices on
 * top, run by `runner`. A model outside `allowedModels` (or one naming an endpoint) is refused
 * before anything is sent anywhere.
 *
 * @example
 * const runQuery = rlmQueryRunner({
 *   runner: createRunner({ resolveModel: (id) => resolveModel(id, { env: process.env }) }),
 *   settings: { model: 'anthropic/claude-sonnet-5-5' },
 * });
 */
export function rlmQueryRunner({
  runner,
  settings,
  allowedModels = [],
  runInput = {},
}: RlmQueryRunnerOptions): RlmQueryRunner {
  const base = runSettingsSchema.parse(settings);
  return async (request) => {
    const chosen = applyCallerChoices(base, callerChoicesOf(request), {
      allowedModels,
      source: 'rlm_query arguments',
    });
    return runner.run(chosen, {
      ...runInput,
      query: request.query,
      context: request.context,
      signal: request.signal,
      onEvent: request.onEvent,
    });
  };
}
