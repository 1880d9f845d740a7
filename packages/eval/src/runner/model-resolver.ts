import { resolveModel } from '@rlm/executor';
import type { LanguageModel } from '@rlm/protocol';
import { isOfflineModelId, offlineModel } from '../offline/offline-model.js';
import type { EvalTask } from '../task/eval-task.js';

/** What a model is for: an RLM's root, its `llm_query` sub-model, or the base system. */
export type ModelRole = 'root' | 'sub' | 'base';

/** Turns a model id into a client for one task and role. */
export type ModelResolver = (id: string, use: { task: EvalTask; role: ModelRole }) => LanguageModel;

export interface CreateModelResolverOptions {
  /** API keys and base URLs (`ANTHROPIC_API_KEY`, …); apps pass `process.env`. @default {} */
  env?: Readonly<Record<string, string | undefined>>;
  /** Context window of offline models, in tokens. */
  offlineContextWindow?: number;
}

/**
 * The default resolver: `testkit:<policy>` gives a fresh offline model per task (policies are
 * per task); any other id goes to `resolveModel` from @rlm/executor, once per id so a provider's
 * client (and its rate limiter) is shared by every task.
 *
 * @throws RlmError `model.missing_api_key`, `model.unknown_provider`, `cli.usage` for a bad offline id
 */
export function createModelResolver({
  env = {},
  offlineContextWindow,
}: CreateModelResolverOptions = {}): ModelResolver {
  const clients = new Map<string, LanguageModel>();
  return function resolve(id, { task, role }) {
    if (isOfflineModelId(id)) {
      return offlineModel(id, {
        task,
        role,
        ...(offlineContextWindow === undefined ? {} : { contextWindow: offlineContextWindow }),
      });
    }
    let client = clients.get(id);
    if (client === undefined) {
      client = resolveModel(id, { env });
      clients.set(id, client);
    }
    return client;
  };
}
