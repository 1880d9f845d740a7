import { offlinePolicy, offlinePolicyName } from '@rlm/eval';
import { type ResolveModelOptions, resolveModel } from '@rlm/executor';
import type { LanguageModel, ReplLanguage } from '@rlm/protocol';
import { scriptedModel } from '@rlm/testkit';

/** The prefix of offline model ids: `testkit:needle-finder` runs that policy in-process. */
export const TESTKIT_PREFIX = 'testkit:';

/**
 * Turns a model id from the command line into a client. Provider ids go to @rlm/executor's
 * `resolveModel` with the environment (keys are read from env only, never from flags, so they stay
 * out of shell history and trajectories); `testkit:<policy>` ids run a rule-based policy offline,
 * from the one list `rlm eval` accepts too (@rlm/eval's `OFFLINE_POLICIES`), writing code in
 * `repl`'s language (`rlm run --repl python --model testkit:needle-finder`).
 * `thinking` and `effort` go to Anthropic clients.
 *
 * @throws RlmError `model.auth` for a missing key, `model.unknown_provider` (also for an unknown
 *   policy), `config.invalid`
 */
export function resolveCliModel(
  id: string,
  env: Readonly<Record<string, string | undefined>>,
  {
    repl = 'javascript',
    ...options
  }: Pick<ResolveModelOptions, 'thinking' | 'effort'> & { repl?: ReplLanguage } = {},
): LanguageModel {
  if (!id.startsWith(TESTKIT_PREFIX)) return resolveModel(id, { env, ...options });
  const policy = offlinePolicy(offlinePolicyName(id), { repl });
  // Offline policies cost nothing: a known price of zero, so --max-cost works with them too.
  return scriptedModel(policy, {
    id: `testkit/${id.slice(TESTKIT_PREFIX.length)}`,
    pricing: { inputPerMTok: 0, outputPerMTok: 0 },
  });
}
