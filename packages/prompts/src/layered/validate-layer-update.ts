import { RlmError } from '@rlm/protocol';
import type { ValidationResult } from '../validation-result.js';
import { DYNAMIC_LAYER_ID, isLayerId, LAYER_TITLES } from './layer-id.js';
import { findOverridePhrase } from './override-phrases.js';

/** The longest text a mutable layer may hold, in characters. */
export const MAX_LAYER_CHARS = 4_000;

/** The error codes `validateLayerUpdate` can return. */
export type LayerUpdateErrorCode =
  | 'prompts.layer_immutable'
  | 'prompts.layer_invalid'
  | 'prompts.layer_too_long'
  | 'prompts.layer_override_attempt';

// A mutable layer that printed "# Layer 1: …" or a separator could pose as an immutable layer.
const LAYER_MARKUP = /^[ \t]*(?:#+[ \t]*layer[ \t]*\d+\b|={5,}[ \t]*$)/im;

function fail<C extends LayerUpdateErrorCode>(error: RlmError<C>): ValidationResult<C> {
  return { ok: false, error };
}

function invalid(layerId: number, reason: string): ValidationResult<'prompts.layer_invalid'> {
  return fail(
    new RlmError({
      code: 'prompts.layer_invalid',
      message: `Layer ${layerId} cannot be updated: ${reason}`,
      details: { layerId, reason },
    }),
  );
}

function checkTarget(layerId: number): ValidationResult<LayerUpdateErrorCode> {
  if (!isLayerId(layerId)) return invalid(layerId, 'expected a layer id from 6 to 9');
  if (layerId <= 5) {
    return fail(
      new RlmError({
        code: 'prompts.layer_immutable',
        message: `Layer ${layerId} (${LAYER_TITLES[layerId]}) is immutable; only layers 6–9 can be updated`,
        details: { layerId },
      }),
    );
  }
  if (layerId === DYNAMIC_LAYER_ID) {
    return invalid(layerId, 'layer 10 is built for each turn and is never stored');
  }
  return { ok: true };
}

/**
 * Checks a proposed new text for a layer without throwing. Only layers 6–9 can change; the text
 * must be a non-empty string of at most `MAX_LAYER_CHARS` characters and must not contain a phrase
 * that tries to override or disable layers 0–5 (see `OVERRIDE_PHRASES`).
 *
 * @example
 * const result = validateLayerUpdate(8, 'Save verified facts with their source.');
 * if (!result.ok) console.error(result.error.code);
 */
export function validateLayerUpdate(
  layerId: number,
  content: string,
): ValidationResult<LayerUpdateErrorCode> {
  const target = checkTarget(layerId);
  if (!target.ok) return target;
  if (typeof content !== 'string') return invalid(layerId, 'expected the content to be a string');
  if (content.trim().length === 0) return invalid(layerId, 'expected non-empty content');
  if (content.length > MAX_LAYER_CHARS) {
    return fail(
      new RlmError({
        code: 'prompts.layer_too_long',
        message: `Layer ${layerId} content has ${content.length} characters; the maximum is ${MAX_LAYER_CHARS}`,
        details: { layerId, length: content.length, max: MAX_LAYER_CHARS },
      }),
    );
  }
  if (LAYER_MARKUP.test(content)) {
    return invalid(layerId, 'the content must not contain a layer header or a separator line');
  }
  const phrase = findOverridePhrase(content);
  if (phrase !== undefined) {
    return fail(
      new RlmError({
        code: 'prompts.layer_override_attempt',
        message: `Layer ${layerId} content tries to override the immutable layers 0–5 ("${phrase}")`,
        details: { layerId, phrase },
      }),
    );
  }
  return { ok: true };
}

/**
 * Like `validateLayerUpdate`, but throws the error.
 *
 * @throws RlmError `prompts.layer_immutable`, `prompts.layer_invalid`, `prompts.layer_too_long`,
 *   `prompts.layer_override_attempt`
 * @example
 * assertLayerUpdate(6, 'Answer pending messages oldest first.');
 */
export function assertLayerUpdate(layerId: number, content: string): void {
  const result = validateLayerUpdate(layerId, content);
  if (!result.ok) throw result.error;
}
