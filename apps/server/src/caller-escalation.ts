import type { RlmQueryRequest } from '@rlm/mcp';
import { RlmError } from '@rlm/protocol';
import { ownProfile, profileNames } from './own-profile.js';
import type { RunMeta } from './run-meta.js';
import type { ServerConfig } from './server-config.js';

/**
 * A caller's escalation ladder: on the server each rung names a configured profile (as `model`
 * does), and runs on that profile's model, so a caller reaches no model the operator did not set up.
 * @throws RlmError `config.invalid` naming the rung and the configured profiles
 */
export function callerEscalation(
  config: ServerConfig,
  request: RlmQueryRequest,
): { escalation?: RunMeta['escalation'] } {
  const { escalate, escalateAfterErrors } = request;
  if (escalate === undefined && escalateAfterErrors === undefined) return {};
  const models = escalate?.map((name, index) => {
    const rung = ownProfile(config, name);
    if (rung !== undefined) return rung.model;
    const issue = `escalate[${index}]: "${name}" is not a configured profile (allowed: ${profileNames(config)})`;
    throw new RlmError({
      code: 'config.invalid',
      message: `Invalid rlm_query arguments: ${issue}`,
      details: { source: 'rlm_query arguments', issues: [issue] },
    });
  });
  return {
    escalation: {
      ...(models === undefined ? {} : { escalate: models }),
      ...(escalateAfterErrors === undefined ? {} : { escalateAfterErrors }),
    },
  };
}
