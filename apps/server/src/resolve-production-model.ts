import { resolveModel } from '@rlm/executor';
import type { LanguageModel } from '@rlm/protocol';
import { isOfflineModelId, offlineModel } from '@rlm/testkit';
import type { ModelResolver } from './executor-engine.js';

/**
 * The production model resolver: `@rlm/executor`'s `resolveModel` with keys and base URLs from
 * the environment, one client per model id and profile options (so runs share its connection
 * pool and limiter); `testkit:<policy>` ids are @rlm/testkit's offline policies (the one list
 * every door accepts) that need no key.
 */
export function createProductionModelResolver(
  env: Readonly<Record<string, string | undefined>>,
): ModelResolver {
  const clients = new Map<string, LanguageModel>();
  return (modelId, { repl = 'javascript', ...options } = {}) => {
    // Offline policies write code in the profile's language; profiles may set thinking or effort
    // for the same model: one client per id and combination.
    const offline = isOfflineModelId(modelId);
    const key = `${modelId} ${JSON.stringify(offline ? { repl } : options)}`;
    let client = clients.get(key);
    if (client === undefined) {
      client = offline
        ? offlineModel(modelId, { repl })
        : resolveModel(modelId, { env, ...options });
      clients.set(key, client);
    }
    return client;
  };
}
