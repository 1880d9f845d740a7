import {
  LAYER_IDS,
  LAYER_TITLES,
  type LayerId,
  type LayerMutability,
  layerMutability,
} from './layer-id.js';
import { layerTexts } from './layer-texts.js';
import type { LayeredPromptInput } from './layered-prompt-input.js';

/** A layer as `listLayers` reports it. */
export interface LayerInfo {
  id: LayerId;
  title: string;
  mutability: LayerMutability;
  /** The current text; `''` for layer 10 when no dynamic context was given. */
  text: string;
}

/**
 * Every layer 0–10 with its title, mutability and current text (seeds for mutable layers the caller
 * did not supply), for inspection tools and the memory store.
 *
 * @throws RlmError same codes as `assemblePrompt` for bad input
 * @example
 * listLayers().filter((layer) => layer.mutability === 'mutable');
 */
export function listLayers(input: LayeredPromptInput = {}): LayerInfo[] {
  const texts = layerTexts(input);
  return LAYER_IDS.map((id) => ({
    id,
    title: LAYER_TITLES[id],
    mutability: layerMutability(id),
    text: texts[id] ?? '',
  }));
}
