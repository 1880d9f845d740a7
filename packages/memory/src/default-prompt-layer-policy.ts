import { DEFAULT_LAYER_SEEDS, validateLayerUpdate } from '@rlm/prompts';
import type { PromptLayerPolicy } from './prompt-layer-store.js';

/**
 * The production rules for layers 6–9, from `@rlm/prompts`: its default seeds, and
 * `validateLayerUpdate` (4,000-character cap, no attempts to override layers 0–5, no layer markup).
 */
export const DEFAULT_PROMPT_LAYER_POLICY: PromptLayerPolicy = {
  seeds: DEFAULT_LAYER_SEEDS,
  validate: validateLayerUpdate,
};
