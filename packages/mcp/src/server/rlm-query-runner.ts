import { createRLM, type RLMConfig } from '@rlm/executor';
import { type LanguageModel, type RLMChatCompletion, RlmError, type RunEvent } from '@rlm/protocol';

/** One delegated run as `rlm_query` asks for it. */
export interface RlmQueryRequest {
  query: string;
  /** The loaded context (inline text and files, joined). */
  context: string;
  /** A model id for the root; the runner's configured model when absent. */
  model?: string | undefined;
  maxDepth?: number | undefined;
  maxIterations?: number | undefined;
  maxCostUsd?: number | undefined;
  signal: AbortSignal;
  onEvent(event: RunEvent): void;
}

/**
 * Runs one delegated `rlm_query` to its end, resolving (never rejecting) with its outcome for
 * failures inside the run. Apps pass their own (the CLI's engine records the run and its
 * trajectory; the server's run manager queues it); `rlmQueryRunner` is the plain one.
 */
export type RlmQueryRunner = (request: RlmQueryRequest) => Promise<RLMChatCompletion>;

/** Options of `rlmQueryRunner`. */
export interface RlmQueryRunnerOptions {
  /** Turns a requested model id into a client; without it, a run naming a model is refused. */
  resolveModel?: (id: string) => LanguageModel;
}

/**
 * A runner that builds `createRLM(config)` per call, with the request's limits on top.
 *
 * @example
 * const run = rlmQueryRunner({ model: anthropic({ model: 'claude-sonnet-4-5' }) });
 */
export function rlmQueryRunner(
  config: RLMConfig,
  { resolveModel }: RlmQueryRunnerOptions = {},
): RlmQueryRunner {
  return async (request) => {
    const model =
      request.model === undefined ? config.model : (resolveModel ?? refuseModel)(request.model);
    const rlm = createRLM({
      ...config,
      model,
      ...(request.maxDepth === undefined ? {} : { maxDepth: request.maxDepth }),
      ...(request.maxIterations === undefined ? {} : { maxIterations: request.maxIterations }),
      budget: {
        ...config.budget,
        ...(request.maxCostUsd === undefined ? {} : { maxCostUsd: request.maxCostUsd }),
      },
      onEvent: (event) => {
        config.onEvent?.(event);
        request.onEvent(event);
      },
    });
    const result = await rlm.completion(request.context, {
      query: request.query,
      signal: request.signal,
    });
    return { ...result, answer: result.answer === null ? null : String(result.answer) };
  };
}

function refuseModel(id: string): LanguageModel {
  throw new RlmError({
    code: 'config.invalid',
    message: `rlm_query: the model "${id}" cannot be chosen on this server (it runs its configured model only); leave out model.`,
    details: { source: 'rlm_query arguments', issues: [`model: "${id}" cannot be chosen here`] },
  });
}
