import { isPriced } from '@rlm/executor';
import type { LanguageModel } from '@rlm/protocol';
import type { ModelResolver } from './executor-engine.js';
import type { ServerConfig } from './server-config.js';

/** A profile whose runs get no dollar cap, and the models of it that have no known price. */
export interface UnpricedProfile {
  profile: string;
  models: string[];
}

/**
 * The profiles whose runs the server's `maxCostUsd` cannot cap: one of their models has no known
 * price (a local vLLM or Ollama server), so there is no cost to count and the runner leaves the
 * cap out (the server's runner is told to omit it rather than refuse the run). A model the
 * resolver refuses is left to the readiness check, which names why.
 */
export function unpricedProfiles(
  config: Pick<ServerConfig, 'profiles'>,
  resolveModel: ModelResolver,
): UnpricedProfile[] {
  const found: UnpricedProfile[] = [];
  for (const [name, profile] of Object.entries(config.profiles)) {
    const ids = [
      ...new Set([
        profile.model,
        profile.subModel ?? profile.model,
        ...(profile.taskModel === undefined ? [] : [profile.taskModel]),
        ...(profile.escalate ?? []),
      ]),
    ];
    const models = ids.filter((id) => {
      const client = resolvedOrUndefined(resolveModel, id, profile.repl);
      return client !== undefined && !isPriced(client);
    });
    if (models.length > 0) found.push({ profile: name, models });
  }
  return found;
}

function resolvedOrUndefined(
  resolveModel: ModelResolver,
  id: string,
  repl: ServerConfig['profiles'][string]['repl'],
): LanguageModel | undefined {
  try {
    return resolveModel(id, { repl });
  } catch {
    return undefined;
  }
}
