import { RlmError } from '@rlm/protocol';
import { ownProfile, profileNames } from './own-profile.js';
import type { ModelProfile, ServerConfig } from './server-config.js';

/**
 * The profile a request names (or the default one).
 *
 * @throws RlmError `protocol.invalid_message` naming the configured profiles
 */
export function resolveProfile(
  config: ServerConfig,
  requested: string | undefined,
): { name: string; profile: ModelProfile } {
  const name = requested ?? config.defaultProfile;
  const profile = ownProfile(config, name);
  if (profile === undefined) {
    const known = profileNames(config);
    throw new RlmError({
      code: 'protocol.invalid_message',
      message: `Unknown profile "${name}"; configured profiles: ${known}`,
      details: { issues: [`profile: expected one of ${known}`] },
    });
  }
  return { name, profile };
}
