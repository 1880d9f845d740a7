import { RlmError } from '@rlm/protocol';
import type { ValidationResult } from '../validation-result.js';
import { MAX_STATIC_PROMPT_CHARS, measureStaticPrompt } from './assemble-prompt.js';
import { checkLayerText, type LayerUpdateErrorCode } from './check-layer-text.js';
import { MAX_IDENTITY_TAG_CHARS } from './identity-tag.js';
import type { SkillSpec } from './immutable-layers.js';
import { isMutableLayerId } from './layer-id.js';

/**
 * The rest of the prompt a layer update lands in, so the size of the whole can be checked
 * before the update is saved.
 */
export interface LayerUpdateContext {
  /** The current texts of the mutable layers (a missing one counts as its seed). */
  layers?: Readonly<Partial<Record<number, string>>> | undefined;
  /**
   * The agent's identity tag. When it is not given, the longest tag allowed is assumed, so a
   * later tag can never push the prompt over the limit.
   */
  identityTag?: string | undefined;
  /** The skills layer 5 lists. @default [] */
  skills?: readonly SkillSpec[] | undefined;
}

/**
 * Checks a proposed new text for a layer without throwing. Only layers 6–9 can change; the text
 * must be a non-empty string of at most `MAX_LAYER_CHARS` characters that `inspectGovernedText`
 * accepts (no NUL, control characters or lone surrogates, no forged layer heading, nothing that
 * voids, overrides, outranks or disables layers 0–5). With `context`, the prompt the update would
 * produce must also stay within `MAX_STATIC_PROMPT_CHARS` without layer 10; the error then says
 * how many characters the layer may have.
 *
 * @example
 * const result = validateLayerUpdate(8, 'Save verified facts with their source.', { layers: current });
 * if (!result.ok) console.error(result.error.code);
 */
export function validateLayerUpdate(
  layerId: number,
  content: string,
  context?: LayerUpdateContext,
): ValidationResult<LayerUpdateErrorCode> {
  const alone = checkLayerText(layerId, content);
  if (!alone.ok || context === undefined || !isMutableLayerId(layerId)) return alone;
  const length = measureStaticPrompt({
    mutable: { ...context.layers, [layerId]: content },
    identityTag: context.identityTag ?? 'x'.repeat(MAX_IDENTITY_TAG_CHARS),
    skills: context.skills,
  });
  if (length <= MAX_STATIC_PROMPT_CHARS) return { ok: true };
  const ownChars = content.trim().length;
  const headroom = Math.max(0, MAX_STATIC_PROMPT_CHARS - (length - ownChars));
  return {
    ok: false,
    error: new RlmError({
      code: 'prompts.prompt_too_long',
      message: `Layer ${layerId} cannot be updated: the layered prompt would have ${length} characters without layer 10, above the maximum of ${MAX_STATIC_PROMPT_CHARS}. With the other layers as they are, layer ${layerId} has room for ${headroom} characters; this text has ${ownChars}.`,
      details: { length, max: MAX_STATIC_PROMPT_CHARS },
    }),
  };
}

/**
 * Like `validateLayerUpdate`, but throws the error.
 *
 * @throws RlmError `prompts.layer_immutable`, `prompts.layer_invalid`, `prompts.layer_too_long`,
 *   `prompts.layer_override_attempt`, `prompts.prompt_too_long`
 * @example
 * assertLayerUpdate(6, 'Answer pending messages oldest first.');
 */
export function assertLayerUpdate(
  layerId: number,
  content: string,
  context?: LayerUpdateContext,
): void {
  const result = validateLayerUpdate(layerId, content, context);
  if (!result.ok) throw result.error;
}
