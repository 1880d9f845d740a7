import { RlmError } from '@rlm/protocol';
import { inspectGovernedText } from '../governance/inspect-governed-text.js';
import type { ValidationResult } from '../validation-result.js';
import type { LayerUpdateErrorCode } from './check-layer-text.js';
import type { SkillSpec } from './immutable-layers.js';

/** The longest skill name, in characters. */
export const MAX_SKILL_NAME_CHARS = 64;
/** The longest skill description, in characters (layer 5 shows it folded onto one line). */
export const MAX_SKILL_DESCRIPTION_CHARS = 1_000;

/** A skill name: lower-case letters, digits, `-` and `_`, starting with a letter or digit. */
export const SKILL_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]*$/;

function refuse(
  code: 'prompts.layer_invalid' | 'prompts.layer_too_long',
  field: string,
  reason: string,
): ValidationResult<LayerUpdateErrorCode> {
  return {
    ok: false,
    error: new RlmError({
      code,
      message: `Skill ${field} cannot be used: ${reason}`,
      details: { layerId: 5, reason: `${field}: ${reason}` },
    }),
  };
}

/**
 * The checks one skill must pass on its own. Skills are injected into immutable layer 5, so their
 * text gets the checks of a mutable layer's text (`inspectGovernedText`: no refused characters,
 * forged headings, markup boundaries, encoded text or attempts to void or outrank layers 0–5)
 * plus a name in `SKILL_NAME_PATTERN` of at most `MAX_SKILL_NAME_CHARS` and a non-empty
 * description of at most `MAX_SKILL_DESCRIPTION_CHARS`.
 */
export function checkSkill(skill: SkillSpec): ValidationResult<LayerUpdateErrorCode> {
  const name = typeof skill?.name === 'string' ? skill.name : undefined;
  const description = typeof skill?.description === 'string' ? skill.description : undefined;
  if (name === undefined || !SKILL_NAME_PATTERN.test(name)) {
    return refuse('prompts.layer_invalid', 'name', 'expected lower-case letters, digits, - or _');
  }
  if (name.length > MAX_SKILL_NAME_CHARS) {
    return refuse(
      'prompts.layer_too_long',
      'name',
      `expected at most ${MAX_SKILL_NAME_CHARS} characters, got ${name.length}`,
    );
  }
  if (description === undefined || description.trim().length === 0) {
    return refuse('prompts.layer_invalid', 'description', 'expected a non-empty description');
  }
  if (description.length > MAX_SKILL_DESCRIPTION_CHARS) {
    return refuse(
      'prompts.layer_too_long',
      'description',
      `expected at most ${MAX_SKILL_DESCRIPTION_CHARS} characters, got ${description.length}`,
    );
  }
  const finding = inspectGovernedText(description);
  if (finding === undefined) return { ok: true };
  if (finding.rule !== 'override')
    return refuse('prompts.layer_invalid', 'description', finding.reason);
  return {
    ok: false,
    error: new RlmError({
      code: 'prompts.layer_override_attempt',
      message: `Skill description cannot be used: ${finding.reason}`,
      details: { layerId: 5, phrase: finding.finding.excerpt },
    }),
  };
}
