import { RlmError } from '@rlm/protocol';
import {
  MUTABLE_LAYER_IDS,
  type MutableLayerId,
  type PromptLayerPolicy,
} from './prompt-layer-store.js';

const IMMUTABLE_LAYER_IDS = [0, 1, 2, 3, 4, 5];

/**
 * Narrows `layerId` to a stored (mutable) layer.
 * @throws RlmError `prompts.layer_immutable` for 0–5 and `prompts.layer_invalid` for anything
 * that is not 6–9 (layer 10 is rebuilt every turn, so it is never stored)
 */
export function toMutableLayerId(layerId: number): MutableLayerId {
  if (IMMUTABLE_LAYER_IDS.includes(layerId)) {
    throw new RlmError({
      code: 'prompts.layer_immutable',
      message: `Prompt layer ${layerId} is immutable; only layers 6–9 can be changed`,
      details: { layerId },
    });
  }
  const found = MUTABLE_LAYER_IDS.find((id) => id === layerId);
  if (found === undefined) {
    throw new RlmError({
      code: 'prompts.layer_invalid',
      message: `layerId: expected one of 6, 7, 8, 9, got ${String(layerId)}`,
      details: { layerId, reason: 'not a stored layer (expected 6–9)' },
    });
  }
  return found;
}

/**
 * Checks a proposed text with the policy before anything is written.
 * @throws RlmError the layer-id errors of `toMutableLayerId`, or the policy's own error
 */
export function checkLayerUpdate(
  policy: PromptLayerPolicy,
  layerId: number,
  content: string,
): MutableLayerId {
  const id = toMutableLayerId(layerId);
  if (typeof content !== 'string') {
    throw new RlmError({
      code: 'prompts.layer_invalid',
      message: `content: expected a string for layer ${id}`,
      details: { layerId: id, reason: 'content is not a string' },
    });
  }
  const result = policy.validate(id, content);
  if (!result.ok) throw result.error;
  return id;
}
