import { RlmError } from '@rlm/protocol';
import type { ValidationResult } from '../validation-result.js';
import { MAX_STATIC_PROMPT_CHARS, measureStaticPrompt } from './assemble-prompt.js';
import type { LayerUpdateErrorCode } from './check-layer-text.js';
import { checkSkill } from './check-skill.js';
import { MAX_IDENTITY_TAG_CHARS } from './identity-tag.js';
import type { SkillSpec } from './immutable-layers.js';
import type { LayerUpdateContext } from './validate-layer-update.js';

/**
 * Checks a skill before it is saved, the way `validateLayerUpdate` checks a layer's text: the
 * skill alone (`checkSkill`), and with `context` the whole prompt it would produce, with this
 * skill added to (or replacing the one of the same name in) `context.skills`, within
 * `MAX_STATIC_PROMPT_CHARS` without layer 10.
 *
 * @example
 * validateSkill({ name: 'refunds', description: 'Issue refunds up to $50.' }, { skills: current });
 */
export function validateSkill(
  skill: SkillSpec,
  context?: LayerUpdateContext,
): ValidationResult<LayerUpdateErrorCode> {
  const alone = checkSkill(skill);
  if (!alone.ok || context === undefined) return alone;
  const skills = [...(context.skills ?? []).filter((each) => each.name !== skill.name), skill];
  const length = measureStaticPrompt({
    mutable: context.layers,
    identityTag: context.identityTag ?? 'x'.repeat(MAX_IDENTITY_TAG_CHARS),
    skills,
  });
  if (length <= MAX_STATIC_PROMPT_CHARS) return { ok: true };
  return {
    ok: false,
    error: new RlmError({
      code: 'prompts.prompt_too_long',
      message: `Skill ${skill.name} cannot be saved: the layered prompt would have ${length} characters without layer 10, above the maximum of ${MAX_STATIC_PROMPT_CHARS}`,
      details: { length, max: MAX_STATIC_PROMPT_CHARS },
    }),
  };
}
