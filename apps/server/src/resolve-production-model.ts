import { resolveModel } from '@rlm/executor';
import type { LanguageModel } from '@rlm/protocol';
import type { ModelResolver } from './executor-engine.js';

/**
 * The production model resolver: `@rlm/executor`'s `resolveModel` with keys and base URLs from
 * the environment, one client per model id (so runs share its connection pool and limiter).
 */
export function createProductionModelResolver(
  env: Readonly<Record<string, string | undefined>>,
): ModelResolver {
  const clients = new Map<string, LanguageModel>();
  return (modelId) => {
    let client = clients.get(modelId);
    if (client === undefined) {
      client = resolveModel(modelId, { env });
      clients.set(modelId, client);
    }
    return client;
  };
}
