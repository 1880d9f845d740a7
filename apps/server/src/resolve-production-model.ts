import { resolveModel } from '@rlm/executor';
import type { LanguageModel } from '@rlm/protocol';
import type { ModelResolver } from './executor-engine.js';
import { isOfflineModelId, offlineModel } from './offline-model.js';

/**
 * The production model resolver: `@rlm/executor`'s `resolveModel` with keys and base URLs from
 * the environment, one client per model id and profile options (so runs share its connection
 * pool and limiter);
 * `testkit:<policy>` ids are offline `@rlm/testkit` policies that need no key.
 */
export function createProductionModelResolver(
  env: Readonly<Record<string, string | undefined>>,
): ModelResolver {
  const clients = new Map<string, LanguageModel>();
  return (modelId, options = {}) => {
    // Profiles may set thinking or effort for the same model: one client per combination.
    const key = `${modelId} ${JSON.stringify(options)}`;
    let client = clients.get(key);
    if (client === undefined) {
      client = isOfflineModelId(modelId)
        ? offlineModel(modelId)
        : resolveModel(modelId, { env, ...options });
      clients.set(key, client);
    }
    return client;
  };
}
