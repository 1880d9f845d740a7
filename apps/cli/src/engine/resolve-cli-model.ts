import { EVAL_OFFLINE_POLICIES } from '@rlm/eval';
import type { LanguageModel } from '@rlm/protocol';
import { OFFLINE_MODEL_PREFIX, withOfflineModels } from '@rlm/testkit';
import { type CliModelOptions, resolveProviderModel } from './resolve-provider-model.js';

/** The prefix of offline model ids: `testkit:needle-finder` runs that policy in-process. */
export const TESTKIT_PREFIX = OFFLINE_MODEL_PREFIX;

/**
 * Turns a model id from the command line into a client. Provider ids go to @rlm/executor's
 * `resolveModel` with the environment (keys are read from env only, never from flags, so they stay
 * out of shell history and trajectories); `testkit:<policy>` ids run a rule-based policy offline,
 * from @rlm/testkit's one list (every door accepts the same ids) plus eval's `reference`, writing code in `repl`'s
 * language. `thinking` and `effort` go to Anthropic clients.
 *
 * @throws RlmError `model.auth` for a missing key, `model.unknown_provider` (also for an unknown
 *   policy), `config.invalid`
 */
export function resolveCliModel(
  id: string,
  env: Readonly<Record<string, string | undefined>>,
  options: CliModelOptions = {},
): LanguageModel {
  return withOfflineModels(
    (modelId: string, modelOptions: CliModelOptions) =>
      resolveProviderModel(modelId, env, modelOptions),
    // `testkit:reference` too, which recognises rlm eval's benchmark questions.
    { extraPolicies: EVAL_OFFLINE_POLICIES },
  )(id, options);
}
