import type { Logger } from 'pino';
import type { ServerServices } from './server-services.js';
import { unpricedProfiles } from './unpriced-profiles.js';

/**
 * The lines a newcomer reads right after `listening`: where the API and the pages are, and what
 * still stands between them and a first answer. Each problem is a warning, so `listening` at
 * info is never the only news from a server that will answer every request with 401 or fail
 * every run: no usable API key (every request is refused), or a default profile whose model
 * cannot be served (no provider key: `/readyz` is 503), and each profile whose runs the dollar cap
 * cannot limit (a model with no known price).
 *
 * The facts are gathered before the server listens and the lines are written at once after it
 * does: nothing is awaited between `listening` and the caller taking over (bin installs its
 * SIGTERM handler then).
 */
export async function prepareStartupGuide(
  services: Pick<ServerServices, 'keys' | 'readiness' | 'config' | 'resolveModel'>,
  logger: Logger,
): Promise<(url: string) => void> {
  const usable = (await services.keys.list()).filter((record) => record.revokedAt === null);
  const { defaultProfile } = await services.readiness();
  const { config, resolveModel } = services;
  const unpriced = resolveModel === undefined ? [] : unpricedProfiles(config, resolveModel);
  return (url) => {
    logger.info(
      {
        openapi: `${url}/openapi.json`,
        runPage: `${url}/ui/runs/<run id>#key=<key>`,
        agentPage: `${url}/ui/agents/<agent id>#key=<key>`,
        readyz: `${url}/readyz`,
      },
      `API described at ${url}/openapi.json; follow a run live at ${url}/ui/runs/<run id>#key=<key>`,
    );
    if (usable.length === 0) {
      logger.warn(
        { keys: 0 },
        'No API key exists yet, so every request will be answered 401. Create one with ' +
          '`rlm-server keys create --name <name> [--role admin]` (same data directory, or the ' +
          'same RLM_DATABASE_URL); the running server accepts it at once, no restart needed.',
      );
    }
    if (defaultProfile !== undefined && !defaultProfile.ok) {
      const profile = services.config.defaultProfile;
      const reason = (defaultProfile.detail ?? 'no reason given').replace(/[.\s]+$/, '');
      logger.warn(
        { profile, detail: defaultProfile.detail },
        `The default profile "${profile}" cannot be served: ${reason}. /readyz answers 503 and ` +
          "the profile's runs fail until its provider key is set or it names a model this " +
          'server can reach.',
      );
    }
    for (const { profile, models } of unpriced) {
      const cap = config.maxima.maxCostUsd;
      logger.warn(
        { profile, models, maxCostUsd: cap },
        `Profile "${profile}" uses ${models.join(' and ')}, which ${models.length === 1 ? 'has' : 'have'} ` +
          'no known price: its runs get ' +
          `no dollar cap (maxCostUsd, $${cap} at most, cannot be counted without one). Token, ` +
          'wall-time and sub-call caps still apply.',
      );
    }
  };
}
