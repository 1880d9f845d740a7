import { RlmError } from '@rlm/protocol';
import { inspectGovernedText } from '../governance/inspect-governed-text.js';
import type { ValidationResult } from '../validation-result.js';
import { DYNAMIC_LAYER_ID, isLayerId, LAYER_TITLES } from './layer-id.js';

/** The longest text a mutable layer may hold, in characters. */
export const MAX_LAYER_CHARS = 4_000;

/** The error codes `validateLayerUpdate` can return. */
export type LayerUpdateErrorCode =
  | 'prompts.layer_immutable'
  | 'prompts.layer_invalid'
  | 'prompts.layer_too_long'
  | 'prompts.layer_override_attempt'
  | 'prompts.prompt_too_long';

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
 * The checks one mutable layer's text must pass on its own: the id is 6–9, the text a non-empty
 * string of at most `MAX_LAYER_CHARS` characters, and `inspectGovernedText` finds nothing (no
 * refused characters, no forged heading, nothing that voids or outranks layers 0–5).
 */
export function checkLayerText(
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
  const finding = inspectGovernedText(content);
  if (finding === undefined) return { ok: true };
  if (finding.rule !== 'override') return invalid(layerId, finding.reason);
  return fail(
    new RlmError({
      code: 'prompts.layer_override_attempt',
      message: `Layer ${layerId} cannot be updated: ${finding.reason}`,
      details: { layerId, phrase: finding.finding.excerpt },
    }),
  );
}
