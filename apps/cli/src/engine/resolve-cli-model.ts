import { resolveModel } from '@rlm/executor';
import { type LanguageModel, RlmError } from '@rlm/protocol';
import { policies, scriptedModel } from '@rlm/testkit';

/** The prefix of offline model ids: `testkit:needle-finder` runs that @rlm/testkit policy in-process. */
export const TESTKIT_PREFIX = 'testkit:';

/** `needle-finder` → `needleFinder`, the policy's name in `policies`. */
const POLICY_NAMES = Object.keys(policies) as (keyof typeof policies)[];
const toKebab = (name: string) => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

/**
 * Turns a model id from the command line into a client. Provider ids go to @rlm/executor's
 * `resolveModel` with the environment (keys are read from env only, never from flags, so they stay
 * out of shell history and trajectories); `testkit:<policy>` ids run a rule-based policy offline.
 *
 * @throws RlmError `model.auth` for a missing key, `model.unknown_provider`, `config.invalid`
 */
export function resolveCliModel(
  id: string,
  env: Readonly<Record<string, string | undefined>>,
): LanguageModel {
  if (!id.startsWith(TESTKIT_PREFIX)) return resolveModel(id, { env });
  const wanted = id.slice(TESTKIT_PREFIX.length);
  // Both spellings work: `needle-finder` (CLI style) and `needleFinder` (the export's name).
  const name = POLICY_NAMES.find(
    (candidate) => toKebab(candidate) === wanted || candidate === wanted,
  );
  if (name === undefined) {
    throw new RlmError({
      code: 'model.unknown_provider',
      message: `Unknown testkit policy "${wanted}" (known: ${POLICY_NAMES.map(toKebab).join(', ')})`,
      details: { modelId: id },
    });
  }
  // Offline policies cost nothing: a known price of zero, so --max-cost works with them too.
  return scriptedModel(policies[name](), {
    id: `testkit/${wanted}`,
    pricing: { inputPerMTok: 0, outputPerMTok: 0 },
  });
}
