import type { ValidationResult } from '../validation-result.js';
import type { LayerUpdateErrorCode } from './check-layer-text.js';
import { DEFAULT_LAYER_SEEDS } from './default-layer-seeds.js';
import type { MutableLayerId } from './layer-id.js';
import { type LayerUpdateContext, validateLayerUpdate } from './validate-layer-update.js';

/**
 * The rules of layers 6–9 in the shape `@rlm/memory`'s prompt-layer store takes as its policy
 * (memory does not depend on this package; the shapes match structurally): the default seeds and
 * `validateLayerUpdate`, which the store calls with the other layers' current texts so the
 * size of the whole prompt is checked before anything is saved.
 *
 * @example
 * const store = await createStore({ kind: 'sqlite', path, promptLayers: PROMPT_LAYER_POLICY });
 */
export const PROMPT_LAYER_POLICY: {
  readonly seeds: Readonly<Record<MutableLayerId, string>>;
  validate(
    layerId: number,
    content: string,
    context?: LayerUpdateContext,
  ): ValidationResult<LayerUpdateErrorCode>;
} = {
  seeds: DEFAULT_LAYER_SEEDS,
  validate: validateLayerUpdate,
};
