import type { PromptLayerPolicy } from '@rlm/memory';
import { DEFAULT_LAYER_SEEDS, validateLayerUpdate } from '@rlm/prompts';

/**
 * The rules for agents' mutable layers 6–9: seeds and validation from `@rlm/prompts`, passed to
 * the store explicitly so the server never depends on a store default.
 */
export const serverPromptLayerPolicy: PromptLayerPolicy = {
  seeds: DEFAULT_LAYER_SEEDS,
  validate: (layerId, content) => validateLayerUpdate(layerId, content),
};
