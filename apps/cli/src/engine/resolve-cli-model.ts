import { resolveModel } from '@rlm/executor';
import { type LanguageModel, RlmError } from '@rlm/protocol';

/** The prefix of offline model ids: `testkit:needle-finder` runs that @rlm/testkit policy in-process. */
export const TESTKIT_PREFIX = 'testkit:';

/**
 * Turns a model id from the command line into a client. Provider ids go to @rlm/executor's
 * `resolveModel` with the environment (keys are read from env only, never from flags, so they stay
 * out of shell history and trajectories).
 *
 * @throws RlmError `model.missing_api_key`, `model.unknown_provider`, `config.invalid`
 */
export function resolveCliModel(
  id: string,
  env: Readonly<Record<string, string | undefined>>,
): LanguageModel {
  if (id.startsWith(TESTKIT_PREFIX)) {
    throw new RlmError({
      code: 'cli.not_available',
      message: `Offline testkit models are not available yet: @rlm/testkit does not export its policies in this build (asked for ${id}).`,
      details: { feature: 'testkit models' },
    });
  }
  return resolveModel(id, { env });
}
