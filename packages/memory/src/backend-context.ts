import type { PromptLayerPolicy } from './prompt-layer-store.js';
import type { StoreLimits } from './store-options.js';

/** What every backend's stores share: resolved limits, the clock, the layer policy, the open flag. */
export interface BackendContext {
  readonly limits: StoreLimits;
  readonly now: () => number;
  readonly policy: PromptLayerPolicy;
  /** @throws RlmError `memory.storage_failed` once the store is closed */
  assertOpen(operation: string): void;
}
