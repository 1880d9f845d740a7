import { resolveModel } from '@rlm/executor';
import type { LanguageModel, ReplLanguage } from '@rlm/protocol';
import { isOfflineModelId, type OfflineTransport, offlineModel } from '../offline/offline-model.js';
import type { EvalTask } from '../task/eval-task.js';

/** What a model is for: an RLM's root, its `llm_query` sub-model, or the base system. */
export type ModelRole = 'root' | 'sub' | 'base';

/** What a model is resolved for: the task, the role, and the REPL language the RLM runs. */
export interface ModelUse {
  task: EvalTask;
  role: ModelRole;
  /** Offline policies write code in it. @default 'javascript' */
  repl?: ReplLanguage | undefined;
}

/** Turns a model id into a client for one task and role. */
export type ModelResolver = (id: string, use: ModelUse) => LanguageModel;

export interface CreateModelResolverOptions {
  /** API keys and base URLs (`ANTHROPIC_API_KEY`, …); apps pass `process.env`. @default {} */
  env?: Readonly<Record<string, string | undefined>>;
  /** Context window of offline models, in tokens. */
  offlineContextWindow?: number;
  /** How offline models reach their policy. @default 'in-process' */
  offlineTransport?: OfflineTransport;
}

/** A resolver that owns resources (fake servers); `close()` releases them all. */
export type ClosableModelResolver = ModelResolver & { close(): Promise<void> };

/**
 * The default resolver: `testkit:<policy>` gives a fresh offline model per task (policies are
 * per task); any other id goes to `resolveModel` from @rlm/executor, once per id so a provider's
 * client (and its rate limiter) is shared by every task. With `offlineTransport: 'fake-anthropic'`
 * each offline model gets its own fake Anthropic server; `close()` stops them.
 *
 * @throws RlmError `model.auth` for a missing key, `model.unknown_provider` (also for an unknown offline policy)
 */
export function createModelResolver({
  env = {},
  offlineContextWindow,
  offlineTransport = 'in-process',
}: CreateModelResolverOptions = {}): ClosableModelResolver {
  const clients = new Map<string, LanguageModel>();
  const closers: (() => Promise<void>)[] = [];
  function resolve(id: string, { task, role, repl }: ModelUse): LanguageModel {
    if (isOfflineModelId(id)) {
      const model = offlineModel(id, {
        task,
        role,
        ...(repl === undefined ? {} : { repl }),
        transport: offlineTransport,
        ...(offlineContextWindow === undefined ? {} : { contextWindow: offlineContextWindow }),
      });
      if ('close' in model) closers.push(() => model.close());
      return model;
    }
    let client = clients.get(id);
    if (client === undefined) {
      client = resolveModel(id, { env });
      clients.set(id, client);
    }
    return client;
  }
  return Object.assign(resolve, {
    async close() {
      await Promise.all(closers.splice(0).map((close) => close()));
    },
  });
}
