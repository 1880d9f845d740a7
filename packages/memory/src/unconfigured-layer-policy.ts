import { RlmError } from '@rlm/protocol';
import type { PromptLayerPolicy } from './prompt-layer-store.js';

/**
 * The policy of a store opened without `promptLayers`: the layers read as empty and every write
 * is refused, because this package has no rules of its own to check layer text against (they come
 * from `@rlm/prompts`).
 */
export const UNCONFIGURED_LAYER_POLICY: PromptLayerPolicy = {
  seeds: { 6: '', 7: '', 8: '', 9: '' },
  validate() {
    return {
      ok: false,
      error: new RlmError({
        code: 'config.invalid',
        message:
          'promptLayers: this store was opened without a prompt-layer policy, so layers cannot be written; pass one to createStore (PROMPT_LAYER_POLICY from @rlm/prompts)',
        details: {
          source: 'createStore options',
          issues: ['promptLayers: expected a policy to write prompt layers'],
        },
      }),
    };
  },
};
