import { RlmError } from '@rlm/protocol';
import { buildDynamicContext } from './build-dynamic-context.js';
import { checkLayerText } from './check-layer-text.js';
import { DEFAULT_LAYER_SEEDS } from './default-layer-seeds.js';
import { validateIdentityTag } from './identity-tag.js';
import {
  DEFAULT_IDENTITY_TAG,
  LAYER_0_INTERPRETATION,
  LAYER_1_CONSTITUTION,
  LAYER_2_RESOURCE_ECONOMICS,
  LAYER_4_ETHICS,
  layer3Identity,
  layer5OperationalReality,
  skillSpecSchema,
} from './immutable-layers.js';
import { isMutableLayerId, type LayerId, MUTABLE_LAYER_IDS } from './layer-id.js';
import type { LayeredPromptInput } from './layered-prompt-input.js';

function checkIdentityTag(tag: string): string {
  const result = validateIdentityTag(tag);
  if (!result.ok) throw result.error;
  return tag.trim();
}

function checkSkills(skills: LayeredPromptInput['skills']): void {
  for (const [index, skill] of (skills ?? []).entries()) {
    const result = skillSpecSchema.safeParse(skill);
    if (!result.success) {
      const reason = `skills.${index}: ${result.error.issues[0]?.message ?? 'invalid skill'}`;
      throw new RlmError({
        code: 'prompts.layer_invalid',
        message: `Layer 5 skills are invalid: ${reason}`,
        details: { layerId: 5, reason },
      });
    }
  }
}

/**
 * Validates the supplied mutable texts (stored text is re-checked, so a tampered store cannot smuggle
 * an override in) and returns the text of every layer 6–9, falling back to the seeds.
 */
function mutableTexts(
  mutable: LayeredPromptInput['mutable'],
  { checked }: { checked: boolean },
): Record<6 | 7 | 8 | 9, string> {
  const texts = { ...DEFAULT_LAYER_SEEDS };
  for (const [key, content] of Object.entries(mutable ?? {})) {
    if (content === undefined) continue;
    const layerId = Number(key);
    const result = checked ? checkLayerText(layerId, content) : { ok: true as const };
    if (!result.ok) throw result.error;
    if (isMutableLayerId(layerId)) texts[layerId] = content.trim();
  }
  return texts;
}

/**
 * The text of every layer for `input`, keyed by id; layer 10 is `undefined` when no dynamic
 * context was given. `checked: false` skips the mutable layers' checks (for measuring sizes only).
 *
 * @throws RlmError `prompts.layer_immutable`, `prompts.layer_invalid`, `prompts.layer_too_long`,
 *   `prompts.layer_override_attempt`, `config.invalid`
 */
export function layerTexts(
  input: LayeredPromptInput,
  { compact = false, checked = true }: { compact?: boolean | undefined; checked?: boolean } = {},
): Record<LayerId, string | undefined> {
  const tag = checked
    ? checkIdentityTag(input.identityTag ?? DEFAULT_IDENTITY_TAG)
    : (input.identityTag ?? DEFAULT_IDENTITY_TAG).trim();
  checkSkills(input.skills);
  const mutable = mutableTexts(input.mutable, { checked });
  const dynamic =
    input.dynamic === undefined
      ? undefined
      : typeof input.dynamic === 'string'
        ? input.dynamic
        : buildDynamicContext(input.dynamic, { compact });
  const texts: Record<LayerId, string | undefined> = {
    0: LAYER_0_INTERPRETATION,
    1: LAYER_1_CONSTITUTION,
    2: LAYER_2_RESOURCE_ECONOMICS,
    3: layer3Identity(tag),
    4: LAYER_4_ETHICS,
    5: layer5OperationalReality(input.skills ?? []),
    6: undefined,
    7: undefined,
    8: undefined,
    9: undefined,
    10: dynamic,
  };
  for (const id of MUTABLE_LAYER_IDS) texts[id] = mutable[id];
  return texts;
}
