import type { LanguageModel } from '@rlm/protocol';
import type { CliModelOptions } from './resolve-provider-model.js';

/** `TESTKIT_PREFIX`, written out so that choosing a resolver loads none of the offline code. */
const OFFLINE_PREFIX = 'testkit:';

export type CliModelResolver = (
  id: string,
  env: Readonly<Record<string, string | undefined>>,
  options?: CliModelOptions,
) => LanguageModel;

/**
 * The resolver for a run whose model ids are `ids` (its model, sub-model, task model and
 * escalation ladder: the only ids a run resolves). With a `testkit:` id among them it is
 * `resolveCliModel`; otherwise `resolveProviderModel`, which resolves provider ids the same way
 * without loading the offline policies (@rlm/testkit and eval's benchmarks, ~180 KB of code).
 */
export async function loadCliModelResolver(
  ids: readonly (string | undefined)[],
): Promise<CliModelResolver> {
  if (ids.some((id) => id?.startsWith(OFFLINE_PREFIX) === true)) {
    return (await import('./resolve-cli-model.js')).resolveCliModel;
  }
  return (await import('./resolve-provider-model.js')).resolveProviderModel;
}
