import { createStore, type Store } from '@rlm/memory';
import { PROMPT_LAYER_POLICY } from '@rlm/prompts';
import type { ServerConfig } from './server-config.js';

/**
 * Agents are registered in the store's default scratchpad (one entry each), so its entry limit
 * is the number of agents a server can hold before the oldest would be evicted.
 */
export const MAX_AGENTS = 100_000;

/** Opens the configured store with the server's prompt-layer policy and limits. */
export function openServerStore(store: ServerConfig['store']): Promise<Store> {
  return createStore({
    ...store,
    promptLayers: PROMPT_LAYER_POLICY,
    limits: { scratchpadEntries: MAX_AGENTS },
  });
}
